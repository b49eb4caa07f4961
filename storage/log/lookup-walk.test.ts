/**
 * The lookup walk of the course, lesson 2 ("Walking the Lookup"): a segment based at 1,245,036
 * whose index holds an entry for 23,371 at position 23,956,421; Asha's record (1,268,410) is found
 * by a binary search and a step forward of 3,155 bytes.
 */
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { Log } from './log.js';
import { RECORD_HEADER_BYTES } from '../record/record.js';

const BASE = 1_245_036;
const ASHA = 1_268_410;
const ASHA_BODY = Buffer.from('{"order":4127,"email":"confirmation"}');
const newDir = tempDirs('walk');

/** Record sizes (whole records) for relative offsets 0 … 23,376 that reproduce the course's walk. */
function courseRecordSizes(): number[] {
  const sizes: number[] = [];
  const fillerRecords = 23_370;
  const bigRecordBytes = 4_200; // > 4,096: guarantees an index entry for the next record, 23,371
  const fillerBytes = 23_956_421 - bigRecordBytes;
  const smaller = fillerRecords * 1025 - fillerBytes; // how many fillers are 1,024 bytes instead
  for (let i = 0; i < fillerRecords; i++) sizes.push(i < smaller ? 1024 : 1025);
  sizes.push(bigRecordBytes);
  sizes.push(1_012, 1_187, 903, 16 + ASHA_BODY.length, 1_064, 1_000);
  return sizes;
}

describe("the course's lookup walk", () => {
  it('finds Asha from the index entry at 23,371 with a two-page step forward', async () => {
    const dir = newDir();
    // The course's segment holds its records back to back: no page alignment's gaps.
    const log = Log.open(dir, { baseOffset: BASE, pageAlign: false });
    const bodies = courseRecordSizes().map((size, relative) =>
      relative === ASHA - BASE
        ? ASHA_BODY
        : Buffer.alloc(size - RECORD_HEADER_BYTES, relative % 251),
    );
    for (let i = 0; i < bodies.length; i += 4096) log.appendBatchNoWait(bodies.slice(i, i + 4096));

    const record = log.read(ASHA);
    expect(record.body.equals(ASHA_BODY)).toBe(true);
    expect(record.sizeBytes).toBe(53);
    expect(record.positionBytes).toBe(23_959_523);
    expect(record.segmentBaseOffset).toBe(BASE);
    await log.close();

    const reopened = Log.open(dir);
    const walk = reopened.explainLookup(ASHA);
    expect(walk).toMatchObject({
      segmentBaseOffset: BASE,
      relativeOffset: 23_374,
      indexEntry: { relativeOffset: 23_371, positionBytes: 23_956_421 },
      recordPositionBytes: 23_959_523,
      stepForwardBytes: 3_155,
      recordsStepped: 4,
    });
    expect(walk.indexEntries).toBeLessThanOrEqual(5_850);
    expect(walk.nextIndexEntry).toEqual({ relativeOffset: 23_376, positionBytes: 23_960_640 });
    await reopened.close();
  });
});
