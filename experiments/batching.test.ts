import { describe, expect, it } from 'vitest';
import type { Results } from '../lab/results.js';
import { SeededRandom } from '../storage/sim/prng.js';
import { gzipSync } from 'node:zlib';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import {
  expectOneUnitPerQuantity,
  expectPredictionsBesideMetrics,
  metricNamed,
  metricsOf,
  runTiny,
} from '../test/fixtures/tiny-experiment.js';
import { drawnCharts, expectWellFormed } from '../test/fixtures/experiment-shape.js';
import { bodyPool, jsonEvent } from './support/batching-bodies.js';
import { STORE_LABELS } from './support/batching-appends.js';
import { experiment } from './batching.js';

const newDir = tempDirs('batching');
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const TINY = {
  messageBytes: '200',
  bodies: 'json,random',
  batchSizes: '1,10',
  rounds: 2,
  roundSeconds: 0.002,
  roundMessages: 40,
  cpuSeconds: 0.001,
  fixedMessages: 60,
  lookupsPerRound: 4,
};

let shared: Promise<Results> | undefined;
function tinyRun(): Promise<Results> {
  shared ??= runTiny(experiment, { dir: newDir(), params: TINY, drops: 'off' });
  return shared;
}

describe('the batching experiment', () => {
  it('appends every store, codec, batch size and policy under the names the charts select', async () => {
    const results = await tinyRun();
    expectWellFormed(results);
    expectOneUnitPerQuantity(results);
    for (const body of ['json', 'random']) {
      for (const policy of ['none', 'always']) {
        const own = metricNamed(results, `batching.${body}.200.${policy}.append.none.1.msgsPerSec`);
        expect(own.labels).toMatchObject({
          store: STORE_LABELS.append,
          codec: 'none',
          batchSize: 1,
          messageBytes: 200,
          body,
          policy,
        });
        expect(own.median).toBeGreaterThan(0);
        expect(own.count).toBe(2);
        const batch = metricNamed(
          results,
          `batching.${body}.200.${policy}.appendBatch.none.10.msgsPerSec`,
        );
        expect(batch.labels?.store).toBe(STORE_LABELS.appendBatch);
        for (const codec of CODECS) {
          for (const size of [1, 10]) {
            const prefix = `batching.${body}.200.${policy}.kafka.${codec}.${size}`;
            const rate = metricNamed(results, `${prefix}.msgsPerSec`);
            expect(rate.labels).toMatchObject({
              store: STORE_LABELS.kafka,
              codec,
              batchSize: size,
              policy,
              workload: `200 B ${body === 'json' ? 'JSON events' : 'random bytes'}, ${policy}`,
            });
            const ratio = metricNamed(results, `${prefix}.vsAppend`);
            expect(ratio.kind).toBe('ratio');
            expect(ratio.median).toBeGreaterThan(0);
          }
        }
      }
    }
  });

  it('draws both charts from its figures, with the models beside the appends', async () => {
    const results = await tinyRun();
    expectPredictionsBesideMetrics(results);
    const charts = drawnCharts(results);
    expect(charts.get('throughput')?.length).toBeGreaterThan(0);
    const models = new Set(results.predictions.map((prediction) => prediction.model));
    expect([...models].sort()).toEqual(['hdd:exos-x20', 'ssd:990-pro']);
    const hasDevice = metricsOf(results, 'deviceBytesPerMsg').length > 0;
    if (hasDevice) expect(charts.get('bytes-per-message')?.length).toBeGreaterThan(0);
    expect(results.headline).toMatch(/200-byte JSON events: under none, loglab/);
  });

  it('counts what the code decides exactly, consistent with the batches', async () => {
    const results = await tinyRun();
    for (const body of ['json', 'random']) {
      const own = `batching.${body}.200.append.none.1`;
      expect(metricNamed(results, `${own}.recordsDecodedPerRead`).median).toBe(1);
      expect(metricNamed(results, `${own}.compressionRatio`).kind).toBe('counter');
      // loglab's record: the body and a 16-byte header, so the log holds more than the bodies.
      expect(metricNamed(results, `${own}.compressionRatio`).median).toBeLessThan(1);
      for (const codec of CODECS) {
        const one = `batching.${body}.200.kafka.${codec}.1`;
        const ten = `batching.${body}.200.kafka.${codec}.10`;
        expect(metricNamed(results, `${one}.recordsDecodedPerRead`).median).toBe(1);
        expect(metricNamed(results, `${ten}.recordsDecodedPerRead`).median).toBe(10);
        // A batch's 61-byte header is paid once for ten messages, not once each.
        expect(metricNamed(results, `${ten}.writtenBytesPerMsg`).median).toBeLessThan(
          metricNamed(results, `${one}.writtenBytesPerMsg`).median,
        );
        expect(metricNamed(results, `${ten}.readBytesPerRead`).median).toBeGreaterThan(
          metricNamed(results, `${one}.readBytesPerRead`).median,
        );
        expect(metricNamed(results, `${ten}.indexBytesPerGiB`).median).toBeGreaterThan(0);
        expect(metricNamed(results, `${ten}.encodeCpuNsPerMsg`).median).toBeGreaterThanOrEqual(0);
        expect(metricNamed(results, `${ten}.readLatencyNs`).labels).toMatchObject({
          cache: 'warm',
          mode: 'sync',
          codec,
        });
      }
    }
    const zstdJson = metricNamed(results, 'batching.json.200.kafka.zstd.10.compressionRatio');
    const zstdRandom = metricNamed(results, 'batching.random.200.kafka.zstd.10.compressionRatio');
    expect(zstdJson.median).toBeGreaterThan(1.5);
    expect(zstdRandom.median).toBeLessThan(1);
  });
});

describe('the batching message bodies', () => {
  it('are JSON events of exactly the size asked, varied from one to the next', () => {
    const random = new SeededRandom(4);
    for (const size of [200, 1024]) {
      const pool = bodyPool(random, 'json', size);
      expect(new Set(pool.map((body) => body.toString('latin1'))).size).toBe(pool.length);
      for (const body of pool.slice(0, 50)) {
        expect(body.length).toBe(size);
        expect(JSON.parse(body.toString('latin1'))).toHaveProperty('eventId');
      }
    }
    expect(() => jsonEvent(random, 0, 100)).toThrow(/128 bytes or more/);
  });

  it('compress as events do while random bodies do not', () => {
    const random = new SeededRandom(4);
    const ratio = (kind: 'json' | 'random') => {
      const joined = Buffer.concat(bodyPool(random, kind, 1024).slice(0, 100));
      return joined.length / gzipSync(joined).length;
    };
    expect(ratio('json')).toBeGreaterThan(2);
    expect(ratio('json')).toBeLessThan(20);
    expect(ratio('random')).toBeLessThan(1.01);
  });
});
