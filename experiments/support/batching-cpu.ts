/**
 * CPU per message of encoding and decoding, without the disk: the process's CPU time
 * (process.cpuUsage, user + system, every thread: zstd compresses on libuv's thread pool) over a
 * loop of whole batches, divided by the messages in them.
 *
 * - Kafka v2 batches: encodeBatch (records, compression, CRC-32C) and decodeBatch (CRC,
 *   decompression, every record parsed), as the batched log's append and lookup run them.
 * - loglab's records: encodeRecordInto (header and CRC-32C per record) and checkRecord plus
 *   decodeCheckedRecord, as its append and read run them; batching does not change them.
 *
 * A few distinct batches are cycled so a codec never sees one input only.
 */
import {
  type KafkaBatchInput,
  type KafkaRecord,
  decodeBatch,
  encodeBatch,
} from '../../storage/index.js';
import {
  assert,
  checkRecord,
  decodeCheckedRecord,
  encodeRecordInto,
} from '../../storage/testing/index.js';
import type { SeriesSpec } from './batching-appends.js';

/** Distinct batches cycled per series. */
const DISTINCT_BATCHES = 4;
const MICROS_TO_NS = 1000;

function cpuNs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) * MICROS_TO_NS;
}

/** What one series encodes and decodes, prepared before any round. */
interface Work {
  encode(i: number): number | Promise<number>;
  decode(i: number): number;
}

function kafkaWork(spec: SeriesSpec, baseTimestampMs: number): Promise<Work> {
  const size = spec.batchSize;
  const pool = spec.workload.poolSize;
  const inputs: KafkaBatchInput[] = Array.from({ length: DISTINCT_BATCHES }, (_, b) => {
    const from = (b * size) % pool;
    const records = spec.workload.bodiesTwice.slice(from, from + size).map(
      (value, i): KafkaRecord => ({
        timestampDeltaMs: 0,
        offsetDelta: i,
        key: null,
        value,
        headers: [],
      }),
    );
    return { baseOffset: 0n, baseTimestampMs, compression: spec.codec, records };
  });
  return Promise.all(inputs.map((input) => encodeBatch(input))).then((encoded) => ({
    encode: async (i) => (await encodeBatch(inputs[i % DISTINCT_BATCHES]!)).length,
    decode: (i) => decodeBatch(encoded[i % DISTINCT_BATCHES]!).recordCount,
  }));
}

/** loglab's records, one batch's worth per call, as its appendBatch encodes them. */
function ownLogWork(spec: SeriesSpec): Work {
  const size = spec.batchSize;
  const bodies = spec.workload.bodiesTwice.slice(0, spec.workload.poolSize);
  const recordBytes = (bodies[0]?.length ?? 0) + 16;
  const target = Buffer.alloc(recordBytes * size);
  const encodeAt = (start: number) => {
    let at = 0;
    for (let i = 0; i < size; i++) {
      at += encodeRecordInto(target, at, start + i, bodies[(start + i) % bodies.length]!);
    }
    return at;
  };
  const encoded = Buffer.from(target.subarray(0, encodeAt(0)));
  return {
    encode: (i) => encodeAt(i * size),
    decode: () => {
      let bytes = 0;
      for (let at = 0; at < encoded.length; at += recordBytes) {
        assert(checkRecord(encoded, at, recordBytes) === null, 'a record just encoded checks out');
        bytes += decodeCheckedRecord(encoded, at, recordBytes).body.length;
      }
      return bytes;
    },
  };
}

export class CpuSeries {
  readonly spec: SeriesSpec;
  readonly encodeNsPerMsg: number[] = [];
  readonly decodeNsPerMsg: number[] = [];
  readonly #work: Work;
  #checksum = 0;

  private constructor(spec: SeriesSpec, work: Work) {
    this.spec = spec;
    this.#work = work;
  }

  static async open(spec: SeriesSpec, baseTimestampMs: number): Promise<CpuSeries> {
    const work = spec.store === 'kafka' ? await kafkaWork(spec, baseTimestampMs) : ownLogWork(spec);
    return new CpuSeries(spec, work);
  }

  /** Bytes encoded and records decoded so far: consumed, so no loop is optimised away. */
  get checksum(): number {
    return this.#checksum;
  }

  /** One round: encode batches for `seconds`, then decode them for as long. */
  async round(seconds: number): Promise<void> {
    this.encodeNsPerMsg.push(await this.#perMessage(seconds, (i) => this.#work.encode(i)));
    this.decodeNsPerMsg.push(await this.#perMessage(seconds, (i) => this.#work.decode(i)));
  }

  async #perMessage(seconds: number, op: (i: number) => number | Promise<number>): Promise<number> {
    const deadlineNs = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
    const since = process.cpuUsage();
    let batches = 0;
    do {
      const result = op(batches);
      this.#checksum += typeof result === 'number' ? result : await result;
      batches++;
    } while (process.hrtime.bigint() < deadlineNs);
    return cpuNs(since) / (batches * this.spec.batchSize);
  }
}
