import { describe, expect, it } from 'vitest';
import { parseFioWrite } from './fio.js';

const OUTPUT = {
  'fio version': 'fio-3.33',
  jobs: [{
    jobname: 'random-write',
    job_runtime: 300,
    write: {
      iops: 23694.07, bw_bytes: 97_050_000, total_ios: 7203,
      lat_ns: { percentile: { '50.000000': 68096, '99.000000': 2_867_200 } },
    },
  }],
};

describe('parseFioWrite', () => {
  it("reads the first job's write figures from fio's JSON", () => {
    expect(parseFioWrite(JSON.stringify(OUTPUT))).toEqual({ ok: true, write: {
      iops: 23694.07, bytesPerSec: 97_050_000, latencyNsP50: 68096, latencyNsP99: 2_867_200,
      ios: 7203, runtimeMs: 300,
    } });
  });

  it('says which figures are missing, or that there was no JSON', () => {
    const partial = { jobs: [{ job_runtime: 1, write: { iops: 1 } }] };
    expect(parseFioWrite(JSON.stringify(partial))).toMatchObject({ ok: false,
      reason: expect.stringMatching(/lacks bytesPerSec, latencyNsP50, latencyNsP99, ios/) });
    expect(parseFioWrite('fio: bad job')).toMatchObject({ ok: false,
      reason: expect.stringMatching(/no JSON/) });
  });
});
