/**
 * The invariant checks can fail: each class's checkInvariants holds on a sound instance and
 * throws once its state is damaged the way a bug would damage it (through the testing-only
 * hooks), so the property tests that call it after every step would catch that bug.
 */
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { Log, segmentsForTesting } from './log.js';
import { asOffset, asPosition } from '../units.js';

const newDir = tempDirs('invariants');

/** A log of at least three segments, indexed every record. */
function logOfSegments(): Log {
  const log = Log.open(newDir(), { segmentBytes: 1024, indexIntervalBytes: 0 });
  while (log.segments().length < 3) log.appendNoWait(Buffer.alloc(100, 7));
  return log;
}

describe('Log.checkInvariants', () => {
  it('fails when a sealed segment no longer ends where the next one begins', async () => {
    const log = logOfSegments();
    log.checkInvariants();
    const [first, second] = segmentsForTesting(log);
    first!.activate(asPosition(first!.sizeBytes), asOffset(second!.baseOffset - 1));
    expect(() => log.checkInvariants()).toThrow(/ends where the next begins/);
    await log.close();
  });

  it('fails when a segment is cut short of an index entry it still holds', async () => {
    const log = logOfSegments();
    const first = segmentsForTesting(log)[0]!;
    const index = first.offsetIndex();
    first.endDataAt(index.positionAt(index.entries - 1));
    expect(() => log.checkInvariants()).toThrow(/the last entry is in the data/);
    await log.close();
  });
});
