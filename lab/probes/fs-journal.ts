/**
 * Whether the filesystem under a directory writes a journal, from what the kernel shows without
 * opening the device: ext4 lists its journal thread in /sys/fs/ext4/<dev>/journal_task
 * (`<none>` when the filesystem was made without one, as some cloud images are), and XFS always
 * logs metadata. It decides whether a journal share of the device's bytes can be told: zero when
 * there is no journal; otherwise jbd2's /proc statistics are rounded averages, too coarse to
 * split a few thousand bytes per message from, so the share is left untold.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export type JournalInfo =
  | { readonly kind: 'none'; readonly evidence: string }
  | { readonly kind: 'present'; readonly evidence: string }
  | { readonly kind: 'unknown'; readonly evidence: string };

export interface FilesystemRef {
  readonly type: string | null;
  /** The mount source, e.g. `/dev/vda1`. */
  readonly source: string | null;
}

function deviceName(source: string): string {
  try {
    return path.basename(fs.realpathSync(source));
  } catch {
    return path.basename(source);
  }
}

function ext4Journal(source: string, sysRoot: string): JournalInfo {
  const file = path.join(sysRoot, 'fs', 'ext4', deviceName(source), 'journal_task');
  let task: string;
  try {
    task = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return { kind: 'unknown', evidence: `${file} cannot be read` };
  }
  if (task === '<none>') {
    return { kind: 'none', evidence: `${file} reads <none>: this ext4 has no journal` };
  }
  return { kind: 'present', evidence: `${file} names journal thread ${task}` };
}

export function describeJournal(filesystem: FilesystemRef, sysRoot = '/sys'): JournalInfo {
  const { type, source } = filesystem;
  if (type === 'ext4' && source !== null && source.startsWith('/dev/')) {
    return ext4Journal(source, sysRoot);
  }
  if (type === 'xfs') return { kind: 'present', evidence: 'XFS always logs its metadata' };
  return { kind: 'unknown', evidence: `no journal probe for a ${type ?? 'unknown'} filesystem` };
}
