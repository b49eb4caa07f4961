/**
 * `loglab bench codec`: the CPU-bound pieces of the storage core, measured with tinybench (the
 * runner is for I/O): CRC-32C of a 1 KiB record, encoding one, checking and decoding one, and the
 * binary search of a 64 MiB segment's sparse index. Every result is folded into a checksum that
 * is reported, so the JIT cannot delete the work. Beside the latencies, what the code alone
 * decides and compare gates exactly: an encoded record's bytes and the keys a search reads.
 */
import { crc32c } from '@node-rs/crc32';
import { Bench } from 'tinybench';
import type { Experiment } from '../../lab/experiment.js';
import type { Metric } from '../../lab/results.js';
import {
  checkRecord,
  decodeCheckedRecord,
  encodeRecord,
  encodeRecordInto,
  largestLowerBoundSlot,
} from '../../storage/testing/index.js';
import { BENCH_CODEC_METRICS } from '../metrics/bench-codec.js';

const BODY_BYTES = 1024;
/** A 64 MiB segment indexed every 4 KiB holds this many entries (the course's 16,384). */
const INDEX_ENTRIES = 16_384;
const M = BENCH_CODEC_METRICS;

/** What one encoded record of the body takes: the record format's size, code-decided. */
function recordBytesMetric(record: Buffer): Metric {
  return M.recordBytes.counter(
    'codec.encode.recordBytes',
    record.length,
    { task: 'encode', bodyBytes: BODY_BYTES },
    'bytes one encoded record of the body takes: header and body',
  );
}

/** The keys the index search reads per search, over every probe: code-decided, no clock. */
function comparisonsPerSearch(keys: Uint32Array, probes: Uint32Array): Metric {
  let comparisons = 0;
  const key = (slot: number) => {
    comparisons++;
    return keys[slot]!;
  };
  for (const probe of probes) largestLowerBoundSlot(key, INDEX_ENTRIES, probe);
  return M.comparisonsPerSearch.counter(
    'codec.indexSearch.comparisonsPerSearch',
    comparisons / probes.length,
    { task: 'indexSearch', entries: INDEX_ENTRIES },
    `index keys read per search of ${INDEX_ENTRIES} entries, over ${probes.length} probes`,
  );
}

export const codecBench: Experiment = {
  id: 'bench-codec',
  question: 'what do the CPU-bound steps of an append and a lookup cost, without any I/O?',
  params: { taskMs: { quick: 200, full: 1000 } },
  seed: 7,
  metrics: BENCH_CODEC_METRICS,
  run: async (ctx) => {
    const body = Buffer.alloc(BODY_BYTES, 0x5a);
    const record = encodeRecord(1_268_410, body);
    const target = Buffer.allocUnsafe(record.length);
    const keys = Uint32Array.from({ length: INDEX_ENTRIES }, (_, i) => i * 4);
    const random = ctx.random.fork();
    const probes = Uint32Array.from({ length: 4096 }, () => random.nextInt(INDEX_ENTRIES * 4));
    let checksum = 0;
    let probe = 0;
    const bench = new Bench({
      time: ctx.numberParam('taskMs'),
      warmupTime: 50,
      retainSamples: true,
    });
    bench
      .add('crc32c', () => {
        checksum ^= crc32c(record.subarray(8));
      })
      .add('encode', () => {
        checksum ^= encodeRecordInto(target, 0, 1_268_410, body);
      })
      .add('checkAndDecode', () => {
        checksum ^=
          checkRecord(record, 0, record.length, 1_268_410) === null
            ? decodeCheckedRecord(record, 0, record.length).body.length
            : -1;
      })
      .add('indexSearch', () => {
        checksum ^= largestLowerBoundSlot(
          (slot) => keys[slot]!,
          INDEX_ENTRIES,
          probes[probe++ & 4095]!,
        );
      });
    await bench.run();
    const metrics: Metric[] = bench.tasks.map((task) => {
      const result = task.result;
      if (!('latency' in result))
        throw new Error(`tinybench task ${task.name} did not complete: ${result.state}`);
      const latency = result.latency;
      return {
        name: `codec.${task.name}.latencyNs`,
        unit: 'ns',
        kind: 'timing',
        class: 'timing',
        direction: 'lower',
        median: latency.p50 * 1e6,
        p50: latency.p50 * 1e6,
        p99: latency.p99 * 1e6,
        max: latency.max * 1e6,
        count: latency.samplesCount,
        labels: { task: task.name, bodyBytes: BODY_BYTES },
      };
    });
    ctx.note(
      `tinybench ${bench.tasks.length} tasks, ${ctx.numberParam('taskMs')} ms each after a 50 ms warm-up; checksum of all results ${checksum >>> 0}.`,
    );
    ctx.note(
      `The index search is over ${INDEX_ENTRIES} entries, a 64 MiB segment indexed every 4 KiB.`,
    );
    return ctx.results({
      metrics: [...metrics, recordBytesMetric(record), comparisonsPerSearch(keys, probes)],
    });
  },
};
