/**
 * Settles memory before a round that writes to the page cache: writes `sizeBytes` into a scratch
 * file in `dir` and deletes it before any of it is written back. The pages the round then takes
 * were just in use, so the host backs them. On a virtual machine with free page reporting
 * (lab/probes/free-page-reporting.ts) memory free for a while goes back to the host, and a round
 * that lands on it pays a host fault per first-touched page: on this lab's VM a plain
 * writeSync loop of 1 KiB records ran at 160,000 or 250,000 a second depending on which memory it
 * got, either side of a comparison, at random. Harmless elsewhere: freed page cache is reused.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MiB } from '../storage/index.js';

const CHUNK_BYTES = MiB;

export function settleMemory(dir: string, sizeBytes: number): void {
  const file = path.join(dir, '.settle-memory');
  const chunk = Buffer.alloc(CHUNK_BYTES, 0x5a);
  const fd = fs.openSync(file, 'w');
  try {
    for (let at = 0; at < sizeBytes; at += CHUNK_BYTES) fs.writeSync(fd, chunk, 0, CHUNK_BYTES, at);
  } finally {
    fs.closeSync(fd);
    fs.unlinkSync(file);
  }
}
