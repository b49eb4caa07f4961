import { describe, expect, it } from 'vitest';
import type { PhaseIo } from './io.js';
import { PhaseTotals } from './phase-totals.js';

function phase(scale: number, withDevice = true): PhaseIo {
  return {
    elapsedNs: 10 * scale,
    proc: {
      rcharBytes: scale,
      wcharBytes: 2 * scale,
      readSyscalls: 1,
      writeSyscalls: 2,
      readBytes: 0,
      writeBytes: 4096 * scale,
      cancelledWriteBytes: 0,
    },
    device: withDevice
      ? {
          disks: ['vda'],
          readIos: 0,
          readBytes: 0,
          writeIos: scale,
          writeBytes: 4096 * scale,
          flushIos: 1,
          discardBytes: 0,
          busyMs: scale,
          timeInQueueMs: scale,
        }
      : null,
    fileIo: {
      writeCalls: scale,
      writeBytes: 1024 * scale,
      readCalls: 0,
      readBytes: 0,
      fdatasyncCalls: scale,
      dirFsyncCalls: 0,
    },
  };
}

describe('PhaseTotals', () => {
  it('adds every counter of the phases it is given', () => {
    const totals = new PhaseTotals();
    expect(totals.total).toBeNull();
    totals.add(phase(1));
    totals.add(phase(2));
    expect(totals.phases).toBe(2);
    expect(totals.total).toMatchObject({
      elapsedNs: 30,
      proc: { wcharBytes: 6, writeSyscalls: 4, writeBytes: 3 * 4096 },
      device: { disks: ['vda'], writeIos: 3, writeBytes: 3 * 4096, flushIos: 2 },
      fileIo: { writeCalls: 3, fdatasyncCalls: 3 },
    });
  });

  it('drops a source that one phase lacks instead of counting it as zero', () => {
    const totals = new PhaseTotals();
    totals.add(phase(1));
    totals.add(phase(1, false));
    expect(totals.total?.device).toBeNull();
    expect(totals.total?.fileIo?.writeCalls).toBe(2);
  });
});
