/**
 * The mount a directory lives on, from /proc/self/mountinfo: filesystem type, options and source
 * device, which decide what an fsync costs (ext4's journal mode, `barrier`, `discard`, …).
 *
 * A mountinfo line (proc(5)):
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *   id parent MAJ:MIN root mount-point mount-options [optional fields…] -
 *   type source super-options
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Mount {
  readonly majorMinor: string;
  readonly mountPoint: string;
  readonly type: string;
  readonly source: string;
  /** Per-mount options, then the filesystem's own (super block) options. */
  readonly mountOptions: string;
  readonly superOptions: string;
}

/** mountinfo escapes space, tab, newline and backslash as three octal digits. */
function unescapeOctal(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_match, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}

export function parseMountInfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator < 0 || fields.length < separator + 4) continue;
    mounts.push({
      majorMinor: fields[2] ?? '',
      mountPoint: unescapeOctal(fields[4] ?? ''),
      mountOptions: fields[5] ?? '',
      type: fields[separator + 1] ?? '',
      source: unescapeOctal(fields[separator + 2] ?? ''),
      superOptions: fields[separator + 3] ?? '',
    });
  }
  return mounts;
}

function contains(mountPoint: string, target: string): boolean {
  if (mountPoint === '/') return true;
  return target === mountPoint || target.startsWith(`${mountPoint}/`);
}

/**
 * The mount holding `dir`: the longest mount point containing its real path; of mounts stacked on
 * the same point, the last one (the visible one).
 */
export function findMount(dir: string, mountInfoFile = '/proc/self/mountinfo'): Mount | null {
  let text: string;
  try {
    text = fs.readFileSync(mountInfoFile, 'utf8');
  } catch {
    return null;
  }
  const target = fs.realpathSync(path.resolve(dir));
  let best: Mount | null = null;
  for (const mount of parseMountInfo(text)) {
    if (!contains(mount.mountPoint, target)) continue;
    if (best === null || mount.mountPoint.length >= best.mountPoint.length) best = mount;
  }
  return best;
}
