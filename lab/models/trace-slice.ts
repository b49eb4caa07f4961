/**
 * A stretch of a write trace as a trace of its own, so a disk model can price the part of a run
 * that was measured — the steady state — without the set-up before it (a log preallocating its
 * segment, a queue filling its backlog).
 */
import { assert } from '../../storage/errors.js';
import { WriteTrace } from './trace-io.js';

export function traceSlice(trace: WriteTrace, fromEvent: number, toEvent = trace.length) {
  assert(fromEvent >= 0, `fromEvent must be >= 0: ${fromEvent}`);
  assert(toEvent >= fromEvent, `the stretch ends before it starts: ${fromEvent} to ${toEvent}`);
  assert(toEvent <= trace.length, `the trace has ${trace.length} events, not ${toEvent}`);
  const slice = new WriteTrace();
  for (const file of trace.files) slice.fileId(file);
  for (let i = fromEvent; i < toEvent; i++) {
    slice.push(trace.kindAt(i), trace.fileAt(i), trace.positionBytesAt(i), trace.lengthBytesAt(i));
  }
  return slice;
}
