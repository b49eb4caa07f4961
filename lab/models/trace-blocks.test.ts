import { describe, expect, it } from 'vitest';
import { flushedBlocks } from './trace-blocks.js';
import { TRACE_DIRECT_WRITE, TRACE_SYNC, TRACE_WRITE, WriteTrace } from './trace-io.js';

describe('flushedBlocks', () => {
  it('counts each dirty block once per sync of its file, and what is dirty at the end', () => {
    const trace = new WriteTrace();
    const log = trace.fileId('/log');
    const slots = trace.fileId('/slots');
    trace.push(TRACE_WRITE, log, 0, 1024);
    trace.push(TRACE_WRITE, log, 1024, 1024); // same block
    trace.push(TRACE_WRITE, slots, 4000, 200); // straddles two blocks
    trace.push(TRACE_SYNC, log, 0, 0); // log: 1 block
    trace.push(TRACE_WRITE, log, 2048, 1024); // dirty again
    trace.push(TRACE_SYNC, log, 0, 0); // log: 1 block
    expect(flushedBlocks(trace, 0, trace.length, 4096)).toBe(1 + 1 + 2);
  });

  it('refuses a direct write, which is no page-cache block (the byte ledger counts those)', () => {
    const trace = new WriteTrace();
    trace.push(TRACE_DIRECT_WRITE, trace.fileId('/log'), 0, 512);
    expect(() => flushedBlocks(trace, 0, 1, 4096)).toThrow(/direct write/);
  });

  it('counts only the stretch asked for', () => {
    const trace = new WriteTrace();
    const file = trace.fileId('/f');
    trace.push(TRACE_WRITE, file, 0, 4096);
    trace.push(TRACE_SYNC, file, 0, 0);
    trace.push(TRACE_WRITE, file, 8192, 8192);
    expect(flushedBlocks(trace, 2, 3, 4096)).toBe(2);
    expect(flushedBlocks(trace, 1, 1, 4096)).toBe(0);
    expect(() => flushedBlocks(trace, 0, 4, 4096)).toThrow(/3 events/);
  });
});
