import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { describeJournal } from './fs-journal.js';

const tempDir = tempDirs('fs-journal');

function sysWithJournalTask(device: string, task: string): string {
  const sysRoot = tempDir();
  fs.mkdirSync(join(sysRoot, 'fs', 'ext4', device), { recursive: true });
  fs.writeFileSync(join(sysRoot, 'fs', 'ext4', device, 'journal_task'), `${task}\n`);
  return sysRoot;
}

describe('describeJournal', () => {
  it('finds no journal on an ext4 made without one', () => {
    const sysRoot = sysWithJournalTask('sdz9', '<none>');
    const info = describeJournal({ type: 'ext4', source: '/dev/sdz9' }, sysRoot);
    expect(info).toMatchObject({ kind: 'none', evidence: expect.stringMatching(/<none>/) });
  });

  it('finds a journal when ext4 names its journal thread', () => {
    const sysRoot = sysWithJournalTask('sdz9', '812');
    expect(describeJournal({ type: 'ext4', source: '/dev/sdz9' }, sysRoot).kind).toBe('present');
  });

  it('knows XFS always logs and says when it cannot tell', () => {
    expect(describeJournal({ type: 'xfs', source: '/dev/sdz9' }).kind).toBe('present');
    expect(describeJournal({ type: 'btrfs', source: '/dev/sdz9' }).kind).toBe('unknown');
    expect(describeJournal({ type: 'ext4', source: '/dev/sdz9' }, tempDir()).kind).toBe('unknown');
  });
});
