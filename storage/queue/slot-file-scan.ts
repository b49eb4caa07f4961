/**
 * What opening a slot file finds (slot-file.ts): every slot read in large chunks, the full ones
 * kept as messages, the rest free, and the next id one past the highest id in the file, deleted
 * slots included, so no deleted id is handed out again.
 */
import type { FileHandle, FileIO } from '../io/file-io.js';
import { STATE_AT, STATE_FREE, STATE_FULL, parseSlot, readSlots } from './slot-format.js';
import { MiB } from '../units.js';

export interface FoundMessage {
  readonly slot: number;
  readonly id: number;
  readonly dueMs: number | undefined;
}

export interface SlotFileScan {
  /** Slots after the header, the last one counted even when the file ends part-way into it. */
  readonly slots: number;
  /** Full slots, oldest id first. */
  readonly full: readonly FoundMessage[];
  /** Free slots, in the order the queue keeps them (it takes from the end). */
  readonly free: readonly number[];
  readonly nextId: number;
  /** The slot holding the highest id; -1 when none holds one. */
  readonly newestSlot: number;
  /** Full slots whose CRC failed: never delivered, their slots free. */
  readonly corruptSkipped: number;
}

/** Scans the slots of a file of `sizeBytes` (its header already checked). */
export function scanSlotFile(
  io: FileIO,
  handle: FileHandle,
  slotBytes: number,
  sizeBytes: number,
): SlotFileScan {
  // A power cut can leave the size part-way through a slot (ext4 commits it at a page
  // boundary): that last slot counts, read as zeros past the end. A message may lie whole in
  // its first part; ignoring it would hand its id out again while its bytes wait on the device.
  const slots = Math.ceil(sizeBytes / slotBytes) - 1;
  const full: FoundMessage[] = [];
  const free: number[] = [];
  let nextId = 0;
  let newestSlot = -1;
  let corruptSkipped = 0;
  const chunk = Buffer.alloc(Math.max(1, Math.floor(MiB / slotBytes)) * slotBytes);
  for (let first = 0; first < slots; first += chunk.length / slotBytes) {
    const count = Math.min(chunk.length / slotBytes, slots - first);
    readSlots(io, handle, slotBytes, chunk, count, first);
    for (let i = count - 1; i >= 0; i--) {
      const slot = first + i;
      const parsed = parseSlot(chunk.subarray(i * slotBytes, (i + 1) * slotBytes));
      if (parsed !== null && parsed.id >= nextId && parsed.state !== STATE_FREE) {
        nextId = parsed.id + 1;
        newestSlot = slot;
      }
      if (parsed !== null && parsed.state === STATE_FULL)
        full.push({ slot, id: parsed.id, dueMs: parsed.dueMs });
      else {
        if (parsed === null && chunk[i * slotBytes + STATE_AT] === STATE_FULL) corruptSkipped++;
        free.push(slot);
      }
    }
  }
  free.reverse();
  full.sort((a, b) => a.id - b.id);
  return { slots, full, free, nextId, newestSlot, corruptSkipped };
}
