import { describe, expect, it } from 'vitest';
import { TRACE_SYNC, TRACE_WRITE, WriteTrace } from './trace-io.js';
import { traceSlice } from './trace-slice.js';

describe('traceSlice', () => {
  it('copies a stretch of events with the same file ids', () => {
    const trace = new WriteTrace();
    const setUp = trace.fileId('/set-up');
    const log = trace.fileId('/log');
    trace.push(TRACE_WRITE, setUp, 0, 1 << 20);
    trace.push(TRACE_WRITE, log, 0, 1040);
    trace.push(TRACE_SYNC, log, 0, 0);
    const slice = traceSlice(trace, 1);
    expect(slice.files).toEqual(['/set-up', '/log']);
    expect(slice.length).toBe(2);
    expect([slice.kindAt(0), slice.fileAt(0), slice.lengthBytesAt(0)]).toEqual([
      TRACE_WRITE,
      log,
      1040,
    ]);
    expect(slice.kindAt(1)).toBe(TRACE_SYNC);
    expect(traceSlice(trace, 3).length).toBe(0);
    expect(() => traceSlice(trace, 2, 1)).toThrow(/ends before it starts/);
  });
});
