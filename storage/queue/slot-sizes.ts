/**
 * How large design A's slots are (slot-file.ts), and which bodies they hold. A slot holds the
 * header, an 8-byte due time (delayed messages only) and the body. Unless `slotBytes` is given it
 * is sized for `maxBodyBytes` (1 KiB by default), delayed or not, rounded up to a power of two —
 * 2,048 bytes by default — so that no slot straddles a 4 KiB page and a send or delete dirties
 * one page, never two. A `slotBytes` given without `maxBodyBytes` takes a body as large as the
 * slot holds undelayed (slotBytes - 20, the course's 1 KiB slot holds 1,004 bytes); a delayed
 * body must then leave room for its due time.
 */
import { checkInteger, invalidConfig } from '../config-checks.js';
import { assert } from '../errors.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  MAX_BODY_BYTES_LIMIT,
  maxBodyBytesOf,
  type QueueOptions,
} from './queue.js';
import { messageTooLarge } from './queue-errors.js';
import { DUE_TIME_BYTES, SLOT_HEADER_BYTES } from './slot-format.js';
import { MiB } from '../units.js';

const MIN_SLOT_BYTES = SLOT_HEADER_BYTES + DUE_TIME_BYTES + 1;
const MAX_SLOT_BYTES = MiB;

/**
 * The slot a body of up to `maxBodyBytes` needs, delayed or not (header, due time, body), rounded
 * up to a power of two: such a slot never straddles a 4 KiB page.
 */
export function slotBytesFor(maxBodyBytes: number): number {
  const neededBytes = SLOT_HEADER_BYTES + DUE_TIME_BYTES + maxBodyBytes;
  return Math.max(MIN_SLOT_BYTES, 2 ** Math.ceil(Math.log2(neededBytes)));
}

/**
 * The slot size when neither `slotBytes` nor `maxBodyBytes` is given: the slot a default 1 KiB
 * body needs (2,048 bytes). The course's design A has 1 KiB slots; experiments that reproduce it
 * pass `slotBytes: 1024`.
 */
export const DEFAULT_SLOT_BYTES = slotBytesFor(DEFAULT_MAX_BODY_BYTES);
assert(DEFAULT_SLOT_BYTES === 2048, 'a 1 KiB body with its header and due time takes a 2 KiB slot');
assert(
  slotBytesFor(MAX_BODY_BYTES_LIMIT) === MAX_SLOT_BYTES,
  'the largest body fills the largest slot',
);

/** Slot size and body limit, each from the other when only one is given. */
export function resolveSlotSizes(options: QueueOptions & { readonly slotBytes?: number }): {
  slotBytes: number;
  maxBodyBytes: number;
} {
  if (options.slotBytes === undefined) {
    const maxBodyBytes = maxBodyBytesOf(options);
    return { slotBytes: slotBytesFor(maxBodyBytes), maxBodyBytes };
  }
  const slotBytes = checkInteger('slotBytes', options.slotBytes, MIN_SLOT_BYTES, MAX_SLOT_BYTES);
  const holdsBytes = slotBytes - SLOT_HEADER_BYTES;
  const maxBodyBytes = maxBodyBytesOf(options, Math.min(holdsBytes, MAX_BODY_BYTES_LIMIT));
  if (maxBodyBytes > holdsBytes) {
    throw invalidConfig(
      'maxBodyBytes',
      `at most ${holdsBytes} (what a ${slotBytes}-byte slot ` +
        'holds after its header); raise slotBytes or leave it out to size slots for the body',
      maxBodyBytes,
    );
  }
  return { slotBytes, maxBodyBytes };
}

/**
 * Refuses a body over `maxBodyBytes` and a delayed one that leaves no room in its slot for the
 * due time (MESSAGE_TOO_LARGE).
 */
export function checkSlotBody(
  bodyBytes: number,
  delayed: boolean,
  sizes: { readonly slotBytes: number; readonly maxBodyBytes: number },
): void {
  if (bodyBytes > sizes.maxBodyBytes) {
    throw messageTooLarge(bodyBytes, sizes.maxBodyBytes, 'maxBodyBytes');
  }
  const delayedHoldsBytes = sizes.slotBytes - SLOT_HEADER_BYTES - DUE_TIME_BYTES;
  if (delayed && bodyBytes > delayedHoldsBytes) {
    throw messageTooLarge(
      bodyBytes,
      delayedHoldsBytes,
      `a delayed body shares its ${sizes.slotBytes}-byte slot with an 8-byte due time; ` +
        'open the queue with a larger slotBytes, or leave slotBytes out',
    );
  }
}
