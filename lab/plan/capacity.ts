/**
 * Capacity arithmetic shared by `loglab plan` and the experiments: how long a number of bytes lasts
 * at a given traffic. The course uses it twice (lesson 2): how long one segment lasts ("Choosing
 * the Segment Size": 64 MiB / 5,120 B/s = 13,107 s, about 3.6 hours) and how much traffic one GiB
 * of page cache holds ("The Page Cache": 209,715 s, about 2.4 days).
 *
 * Message bytes here are what the producer sends; the course's table leaves the record header out,
 * so a real segment (16 header bytes per record) fills a little sooner than this says.
 */
import { assert } from '../../storage/errors.js';
import { MiB } from '../../storage/units.js';

export interface Traffic {
  readonly msgsPerSec: number;
  readonly messageBytes: number;
}

/** The email queue's normal traffic in the course: 5 messages a second of 1,024 bytes. */
export const COURSE_NORMAL_TRAFFIC: Traffic = { msgsPerSec: 5, messageBytes: 1024 };

/** The rows of the course's segment-size table: 4 MiB, 64 MiB, 100 MiB and 1 GiB. */
export const COURSE_SEGMENT_TABLE_BYTES: readonly number[] = [
  4 * MiB,
  64 * MiB,
  100 * MiB,
  1024 * MiB,
];

function assertTraffic(traffic: Traffic): void {
  assert(Number.isFinite(traffic.msgsPerSec), `msgsPerSec must be finite: ${traffic.msgsPerSec}`);
  assert(traffic.msgsPerSec > 0, `msgsPerSec must be positive: ${traffic.msgsPerSec}`);
  const { messageBytes } = traffic;
  assert(Number.isFinite(messageBytes), `messageBytes must be finite: ${messageBytes}`);
  assert(messageBytes > 0, `messageBytes must be positive: ${messageBytes}`);
}

/** Bytes a second the traffic writes: 5 × 1,024 = 5,120 for the course's normal traffic. */
export function trafficBytesPerSec(traffic: Traffic): number {
  assertTraffic(traffic);
  return traffic.msgsPerSec * traffic.messageBytes;
}

/**
 * Seconds until `bytes` are filled at `traffic`: a segment's lifetime, or how far back the page
 * cache reaches. Not rounded; the course prints 819 s for 4 MiB (819.2).
 */
export function secondsToFill(bytes: number, traffic: Traffic): number {
  assert(Number.isFinite(bytes), `bytes must be finite: ${bytes}`);
  assert(bytes >= 0, `bytes must be >= 0: ${bytes}`);
  return bytes / trafficBytesPerSec(traffic);
}
