import { describe, expect, it } from 'vitest';
import { parseFioWrite } from './fio.js';

/** The parts of fio 3.33's `--output-format=json+` that parseFioWrite reads. */
function output(write: Record<string, unknown>): string {
  return JSON.stringify({
    'fio version': 'fio-3.33',
    jobs: [{ jobname: 'random-write', job_runtime: 100, write }],
  });
}

const WRITE = {
  iops: 70,
  bw_bytes: 286_720,
  total_ios: 7,
  runtime: 100,
  lat_ns: {
    N: 7,
    percentile: { '50.000000': 68096 },
    bins: { '68096': 3, '2867200': 1, '56576': 2, '70144': 1 },
  },
};

describe('parseFioWrite', () => {
  it("reads the first job's write figures and its latency bins, ascending", () => {
    expect(parseFioWrite(output(WRITE))).toEqual({
      ok: true,
      write: {
        iops: 70,
        bytesPerSec: 286_720,
        ios: 7,
        runtimeMs: 100,
        latencyNsBins: [
          [56576, 2],
          [68096, 3],
          [70144, 1],
          [2_867_200, 1],
        ],
      },
    });
  });

  it('says which figures are missing, or that there was no JSON', () => {
    const partial = { iops: 1, runtime: 1 };
    expect(parseFioWrite(output(partial))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/lacks bytesPerSec, ios, latencyNsBins$/),
    });
    expect(parseFioWrite('fio: bad job')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no JSON/),
    });
  });

  it('refuses bins that do not account for every write, or a run that wrote nothing', () => {
    const short = { ...WRITE, lat_ns: { bins: { '68096': 3 } } };
    expect(parseFioWrite(output(short))).toEqual({
      ok: false,
      reason: 'fio binned 3 latencies for 7 writes',
    });
    const bad = { ...WRITE, lat_ns: { bins: { '68096': -1 } } };
    expect(parseFioWrite(output(bad))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/lacks latencyNsBins/),
    });
    const none = { ...WRITE, total_ios: 0, lat_ns: { bins: {} } };
    expect(parseFioWrite(output(none))).toEqual({
      ok: false,
      reason: 'fio wrote 0 blocks in 100 ms',
    });
  });
});
