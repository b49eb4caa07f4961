/**
 * How many filesystem blocks a stretch of a write trace sends to the disk as data: every block a
 * write touches is dirty until a sync of its file writes it, once however often it was rewritten
 * meanwhile, and whatever is still dirty at the end of the stretch is written then (the caller
 * ends it with a `sync`).
 *
 * This is the data share of the device's bytes, counted from what the program wrote rather than
 * from /proc/self/io: the kernel charges `write_bytes` per folio dirtied, and with large folios
 * (ext4 since Linux 6.16) one byte rewritten after a sync can be charged hundreds of KiB, while
 * write-back still writes only the dirty blocks.
 */
import { assert } from '../../storage/errors.js';
import { TRACE_DIRECT_WRITE, TRACE_SYNC, TRACE_WRITE, type WriteTrace } from './trace-io.js';

export function flushedBlocks(
  trace: WriteTrace,
  fromEvent: number,
  toEvent: number,
  blockBytes: number,
): number {
  assert(Number.isSafeInteger(blockBytes), `blockBytes must be an integer: ${blockBytes}`);
  assert(blockBytes > 0, `blockBytes must be positive: ${blockBytes}`);
  assert(fromEvent >= 0, `fromEvent must be >= 0: ${fromEvent}`);
  assert(toEvent >= fromEvent, `the stretch ends before it starts: ${fromEvent} to ${toEvent}`);
  assert(toEvent <= trace.length, `the trace has ${trace.length} events, not ${toEvent}`);
  const dirty = new Map<number, Set<number>>();
  let flushed = 0;
  for (let i = fromEvent; i < toEvent; i++) {
    const kind = trace.kindAt(i);
    const file = trace.fileAt(i);
    assert(kind !== TRACE_DIRECT_WRITE, 'a direct write is no page-cache block: byte-ledger.ts');
    if (kind === TRACE_WRITE) {
      const first = Math.floor(trace.positionBytesAt(i) / blockBytes);
      const endBytes = trace.positionBytesAt(i) + trace.lengthBytesAt(i);
      const last = Math.ceil(endBytes / blockBytes) - 1;
      let blocks = dirty.get(file);
      if (blocks === undefined) dirty.set(file, (blocks = new Set()));
      for (let block = first; block <= last; block++) blocks.add(block);
    } else if (kind === TRACE_SYNC) {
      flushed += dirty.get(file)?.size ?? 0;
      dirty.delete(file);
    }
  }
  for (const blocks of dirty.values()) flushed += blocks.size;
  return flushed;
}
