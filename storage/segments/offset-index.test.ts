/**
 * searchIndexFile against a sorted array: the same answer as the resident index for every target,
 * with and without Kafka's warm section, and fewer pages touched for recent targets when the
 * index is larger than the warm section.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FileHandle } from '../io/file-io.js';
import { OFFSET_INDEX_ENTRY_BYTES, OffsetIndex, searchIndexFile } from './offset-index.js';
import { SimDisk } from '../sim/sim-disk.js';

const WARM_SECTION_BYTES = 8192;

interface IndexedFile {
  readonly disk: SimDisk;
  readonly handle: FileHandle;
}

/** An index file holding `keys` (strictly increasing), each at position 10 × key + 1. */
function indexFile(keys: readonly number[]): IndexedFile {
  const disk = new SimDisk({ seed: 7 });
  disk.mkdirp('/log');
  const index = OffsetIndex.create(disk, '/log/0.index');
  for (const key of keys) index.append(key, key * 10 + 1);
  index.close();
  return { disk, handle: disk.openReadOnly('/log/0.index') };
}

/** The reference: the last slot whose key is <= target, by a linear walk. */
function referenceSlot(keys: readonly number[], target: number): number {
  let slot = -1;
  for (let i = 0; i < keys.length && keys[i]! <= target; i++) slot = i;
  return slot;
}

/** Strictly increasing keys from positive gaps. */
const increasingKeys = fc
  .array(fc.integer({ min: 1, max: 50 }), { maxLength: 3_000 })
  .map((gaps) => {
    let key = 0;
    return gaps.map((gap) => (key += gap));
  });

describe('searching an index file', () => {
  it('finds the same entry as a sorted-array reference, with and without a warm section', () => {
    fc.assert(
      fc.property(
        increasingKeys,
        fc.integer({ min: 0, max: 160_000 }),
        fc.constantFrom(0, 8, 64, 4096, WARM_SECTION_BYTES),
        (keys, target, warmSectionBytes) => {
          const { disk, handle } = indexFile(keys);
          const found = searchIndexFile(disk, handle, target, { warmSectionBytes });
          const expected = referenceSlot(keys, target);
          expect(found.slot).toBe(expected);
          expect(found.entries).toBe(keys.length);
          expect(found.relativeOffset).toBe(expected < 0 ? null : keys[expected]);
          expect(found.positionBytes).toBe(expected < 0 ? null : keys[expected]! * 10 + 1);
          expect(found.probes).toBe(disk.counters.readCalls);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers an empty file with no entry and no read', () => {
    const { disk, handle } = indexFile([]);
    const found = searchIndexFile(disk, handle, 5, { warmSectionBytes: WARM_SECTION_BYTES });
    expect(found).toMatchObject({ slot: -1, relativeOffset: null, probes: 0, pagesTouched: 0 });
  });

  it('touches only the last pages for a recent target when the warm section is searched first', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => i * 3);
    const { disk, handle } = indexFile(keys);
    const recent = keys[keys.length - 5]!;
    const plain = searchIndexFile(disk, handle, recent);
    const warm = searchIndexFile(disk, handle, recent, { warmSectionBytes: WARM_SECTION_BYTES });
    expect(warm.slot).toBe(plain.slot);
    // The warm section spans two or three pages; a plain search wanders across the whole file.
    expect(warm.pagesTouched).toBeLessThanOrEqual(3);
    expect(plain.pagesTouched).toBeGreaterThan(warm.pagesTouched);
  });

  it('costs an old target at most two probes more than a plain search', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => i * 3);
    const { disk, handle } = indexFile(keys);
    for (const target of [0, 1, 150_000, 290_000]) {
      const plain = searchIndexFile(disk, handle, target);
      const warm = searchIndexFile(disk, handle, target, { warmSectionBytes: WARM_SECTION_BYTES });
      expect(warm.slot).toBe(plain.slot);
      expect(warm.probes).toBeLessThanOrEqual(plain.probes + 2);
    }
  });

  it('counts pages in the page size it is given', () => {
    const keys = Array.from({ length: 4_096 }, (_, i) => i);
    const { disk, handle } = indexFile(keys);
    const wholeFileBytes = keys.length * OFFSET_INDEX_ENTRY_BYTES;
    const onePage = searchIndexFile(disk, handle, 2_000, { pageBytes: wholeFileBytes });
    const small = searchIndexFile(disk, handle, 2_000, { pageBytes: 512 });
    expect(onePage.pagesTouched).toBe(1);
    expect(small.pagesTouched).toBeGreaterThan(1);
  });
});

describe('creating an index file', () => {
  it('empties an index file left under the same name', () => {
    const disk = new SimDisk({ seed: 7 });
    disk.mkdirp('/log');
    const left = OffsetIndex.create(disk, '/log/0.index');
    left.append(1, 11);
    left.close();
    const again = OffsetIndex.create(disk, '/log/0.index');
    expect(again.entries).toBe(0);
    again.close();
    expect(disk.readWholeFile('/log/0.index')?.length).toBe(0);
  });
});
