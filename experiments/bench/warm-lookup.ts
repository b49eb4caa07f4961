/**
 * The warm lookup, as the storage bench and the hot-path bench measure it: random offsets of a
 * log whose segments sit in the page cache, each read through `Log.read` (index search, step
 * forward, CRC check, copy of the body) — beside a bare `pread` of the same record's bytes from
 * the same file, so what the log adds is a ratio of one run, and beside that `pread` followed by
 * the log's own check of the record (CRC-32C, id): the least a lookup that never serves a damaged
 * record does, so a target below it is one the machine, not the code, refuses. On a guest where a
 * system call leaves the caches cold the check after the read costs more than the check alone.
 * The three take turns round by round (the order reversed every other round), on the same offsets.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LabContext } from '../../lab/experiment.js';
import { Measurement } from '../../lab/measurement.js';
import { settleMemory } from '../../lab/memory-settle.js';
import { metricFromSamples } from '../../lab/metric.js';
import type { Metric } from '../../lab/results.js';
import { measureSync, warmUpSync } from '../../lab/runner.js';
import { Log, type LogOptions } from '../../storage/index.js';
import { checkRecord } from '../../storage/testing/index.js';

const BODY_BYTES = 1024;
const SAMPLED_OFFSETS = 1 << 16;
const WARM_UP_LOOKUPS = 20_000;

/** A log of about `sizeBytes` of 1 KiB records, appended in batches of 1,024. */
export function buildLog(dir: string, sizeBytes: number, options: LogOptions): Log {
  const log = Log.open(dir, options);
  const batch = Array.from({ length: 1024 }, (_, i) => Buffer.alloc(BODY_BYTES, i % 251));
  for (let written = 0; written < sizeBytes; written += batch.length * (BODY_BYTES + 16))
    log.appendBatchNoWait(batch);
  return log;
}

interface RecordPlace {
  readonly fd: number;
  readonly positionBytes: number;
  readonly sizeBytes: number;
}

/** Where each offset's record lies, as the log's own lookup finds it. */
function recordPlaces(log: Log, offsets: Float64Array): { places: RecordPlace[]; fds: number[] } {
  const fdByBase = new Map(
    log.segments().map((segment) => [segment.baseOffset, fs.openSync(segment.logPath, 'r')]),
  );
  const places = Array.from(offsets, (offset) => {
    const walk = log.explainLookup(offset);
    return {
      fd: fdByBase.get(walk.segmentBaseOffset)!,
      positionBytes: walk.recordPositionBytes,
      sizeBytes: walk.recordSizeBytes,
    };
  });
  return { places, fds: [...fdByBase.values()] };
}

export interface WarmLookupOptions {
  readonly logBytes: number;
  readonly rounds: number;
  readonly lookupsPerRound: number;
}

function p50Metric(
  name: string,
  measurement: Measurement,
  labels: Record<string, string | number>,
  description: string,
): Metric {
  return metricFromSamples(
    name,
    'ns',
    measurement.repetitions.map((repetition) => repetition.latencyNsP50),
    { class: 'timing', direction: 'lower', labels, description },
  );
}

export function warmLookups(ctx: LabContext, options: WarmLookupOptions): Metric[] {
  const dir = path.join(ctx.dir, 'lookup');
  fs.mkdirSync(dir);
  // Random lookups over the log's page cache are the figure most sensitive to how the host backs
  // that memory (lab/memory-settle.ts): the log is built on memory just in use.
  settleMemory(dir, options.logBytes);
  const log = buildLog(dir, options.logBytes, { durability: 'none' });
  const random = ctx.random.fork();
  const end = log.endOffset;
  const offsets = Float64Array.from({ length: SAMPLED_OFFSETS }, () => random.nextInt(end));
  const { places, fds } = recordPlaces(log, offsets);
  const buffer = Buffer.alloc(64 * 1024);
  const pick = (i: number) => i & (SAMPLED_OFFSETS - 1);
  const lookup = (i: number) => log.read(offsets[pick(i)]!).body.length;
  const pread = (i: number) => {
    const place = places[pick(i)]!;
    return fs.readSync(place.fd, buffer, 0, place.sizeBytes, place.positionBytes);
  };
  const checkedPread = (i: number) => {
    const size = pread(i);
    const problem = checkRecord(buffer, 0, size, offsets[pick(i)]!);
    if (problem !== null) throw new Error(`the record read back fails its check: ${problem}`);
    return size;
  };
  const lookups = new Measurement('lookup.warm', 'sync');
  const preads = new Measurement('lookup.pread', 'sync');
  const checkedPreads = new Measurement('lookup.checkedPread', 'sync');
  const sides = [
    { measurement: lookups, op: lookup },
    { measurement: preads, op: pread },
    { measurement: checkedPreads, op: checkedPread },
  ];
  for (const { measurement, op } of sides) warmUpSync(measurement, op, { ops: WARM_UP_LOOKUPS });
  const budget = { ops: options.lookupsPerRound };
  for (let r = 0; r < options.rounds; r++) {
    for (const { measurement, op } of r % 2 === 0 ? sides : [...sides].reverse())
      measureSync(measurement, op, budget);
  }
  for (const fd of fds) fs.closeSync(fd);
  void log.close();
  fs.rmSync(dir, { recursive: true });
  const { latencyNs, ops } = lookups.summarize(ctx.random);
  const labels = { cache: 'warm', logBytes: options.logBytes };
  const perRound = `each round the median of ${options.lookupsPerRound.toLocaleString('en-US')}`;
  const preadP50 = preads.repetitions.map((repetition) => repetition.latencyNsP50);
  return [
    // Round by round, so the median carries an interval a target's verdict can be read against.
    p50Metric(
      'lookup.warm.p50Ns',
      lookups,
      labels,
      `median random-offset lookup (index search, step forward, CRC check, copy of the body), round by round: ${perRound} lookups`,
    ),
    {
      name: 'lookup.warm.p99Ns',
      unit: 'ns',
      kind: 'timing',
      class: 'timing',
      direction: 'lower',
      median: latencyNs.p99 ?? latencyNs.median,
      count: ops,
      labels,
      description: '99th percentile of every lookup of the same rounds',
    },
    p50Metric(
      'lookup.warm.preadP50Ns',
      preads,
      labels,
      `median pread of the same records' bytes from the same files (no index, no check, no copy out), round by round: ${perRound} reads`,
    ),
    p50Metric(
      'lookup.warm.checkedPreadP50Ns',
      checkedPreads,
      labels,
      `median pread of the same records' bytes then the log's check of each (CRC-32C, id; no index, no copy out): the least a lookup that never serves a damaged record does, round by round: ${perRound} reads`,
    ),
    metricFromSamples(
      'lookup.warm.vsPread',
      'ratio',
      lookups.repetitions.map((repetition, r) => repetition.latencyNsP50 / preadP50[r]!),
      {
        class: 'timing',
        direction: 'lower',
        ratio: true,
        labels,
        description:
          "the lookup's median over the bare pread's, round by round: what finding, checking and copying a record adds to reading its bytes",
      },
    ),
  ];
}
