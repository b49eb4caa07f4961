/**
 * Real crashes: a child appends batches under `always` or `group` and is killed with SIGKILL at
 * a random moment. Every batch it reported as acknowledged reads back after reopening.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runAndKill } from '../../test/fixtures/kill-child.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { BatchedLog } from './batched-log.js';
import { crashBatchSize, crashValue } from './batched-log.crash-child.js';

const CHILD = fileURLToPath(new URL('./batched-log.crash-child.ts', import.meta.url));
const newDir = tempDirs('batched-crash');

describe('the batched log killed with SIGKILL', () => {
  for (const policy of ['always', 'group']) {
    it(`keeps every batch acknowledged under ${policy}`, async () => {
      const dir = newDir();
      let checked = 0;
      for (const killAfterMs of [150, 400, 50 + Math.floor(Math.random() * 500)]) {
        const lines = await runAndKill(CHILD, [dir, policy], killAfterMs);
        const acked = lines
          .filter((line) => /^\d+ \d+ \d+ \d+$/.test(line))
          .map((line) => line.split(' ').map(Number) as [number, number, number, number]);
        expect(acked.length).toBeGreaterThan(0);
        const log = BatchedLog.open(dir);
        for (const [base, last, producer, sequence] of acked) {
          expect(last - base + 1).toBe(crashBatchSize(sequence));
          for (let offset = base; offset <= last; offset++) {
            const value = Buffer.from(log.read(offset).value!);
            expect(value.equals(crashValue(producer, sequence, offset - base))).toBe(true);
          }
        }
        expect(log.endOffset).toBeGreaterThan(Math.max(...acked.map(([, last]) => last)));
        expect([...log.records()].length).toBe(log.endOffset);
        checked += acked.length;
        await log.close();
      }
      expect(checked).toBeGreaterThan(10);
    });
  }
});
