/**
 * The benches on tiny parameters: their documents validate, every target names a metric they
 * report, and the codec bench covers each step. Shapes only, never timing values.
 */
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { runTiny } from '../../test/fixtures/tiny-experiment.js';
import { fioVersion } from '../../lab/probes/fio.js';
import { checkTargets } from './targets.js';
import { benchSuites } from './index.js';
import { codecBench } from './codec.js';
import { hotPathsBench } from './hot-paths.js';
import { queueBench } from './queue.js';
import { retentionBench } from './retention.js';
import { storageBench } from './storage.js';
import { MiB } from '../../storage/index.js';

const newDir = tempDirs('bench');

describe('loglab bench', () => {
  it('storage reports every figure its targets check', async () => {
    const results = await runTiny(storageBench, {
      dir: newDir(),
      drops: 'refused',
      params: {
        rounds: 2,
        roundSeconds: 0.05,
        lookupLogBytes: 2 * MiB,
        recoverySegmentBytes: 2 * MiB,
        rssAppendBytes: 8 * MiB,
      },
    });
    const storage = benchSuites.find((suite) => suite.name === 'storage')!;
    // fio's figures, and the plain Node loop run beside them, are skipped, with a note, where
    // fio is not installed.
    const skipped =
      fioVersion() === null
        ? ['append.always.inline.vsFioSeqSync', 'append.always.threadPool.vsNodeThreadPoolSync']
        : [];
    for (const check of checkTargets(results, storage.targets)) {
      if (!skipped.includes(check.target.metric))
        expect(check.value, check.target.metric).not.toBeNull();
    }
    const ratio = results.metrics.find((metric) => metric.name === 'append.none.vsRawFs')!;
    const log = results.metrics.find((metric) => metric.name === 'append.none.ratePerSec')!;
    const raw = results.metrics.find((metric) => metric.name === 'append.none.rawFsRatePerSec')!;
    expect(ratio.samples).toEqual(log.samples!.map((rate, i) => rate / raw.samples![i]!));
    // The ceiling of a checksummed log, from the same paired rounds.
    const checksummed = results.metrics.find(
      (metric) => metric.name === 'append.none.checksummedFsRatePerSec',
    )!;
    const ceiling = results.metrics.find(
      (metric) => metric.name === 'append.none.checksummedFsVsRawFs',
    )!;
    expect(ceiling.samples).toEqual(checksummed.samples!.map((rate, i) => rate / raw.samples![i]!));
    // The warm lookup's median round by round (two rounds here), so its target has an interval.
    const lookup = results.metrics.find((metric) => metric.name === 'lookup.warm.p50Ns')!;
    expect(lookup).toMatchObject({ kind: 'timing', unit: 'ns' });
    expect(lookup.samples).toHaveLength(2);
    if (fioVersion() !== null) {
      // The log's event-loop time per synced append above plain Node's, from the same rounds.
      const loop = (name: string) => results.metrics.find((metric) => metric.name === name)!;
      const logNs = loop('append.always.threadPool.loopNsPerAppend').samples!;
      const nodeNs = loop('append.always.nodeThreadPoolSync.loopNsPerAppend').samples!;
      expect(logNs.every((ns) => ns > 0) && nodeNs.every((ns) => ns > 0)).toBe(true);
      expect(
        loop('append.always.threadPool.aboveNodeThreadPoolSync.loopNsPerAppend').samples,
      ).toEqual(logNs.map((ns, i) => ns - nodeNs[i]!));
      // The default over inline, from the same rounds as both over fio.
      const overFio = loop('append.always.vsFioSeqSync').samples!;
      const inlineOverFio = loop('append.always.inline.vsFioSeqSync').samples!;
      const vsInline = loop('append.always.vsInline').samples!;
      expect(vsInline).toHaveLength(overFio.length);
      vsInline.forEach((ratio, i) => expect(ratio).toBeCloseTo(overFio[i]! / inlineOverFio[i]!, 9));
    }
  });

  it('queue reports cycles, bytes and in-flight memory for both designs', async () => {
    const results = await runTiny(queueBench, {
      dir: newDir(),
      drops: 'refused',
      params: { rounds: 1, roundSeconds: 0.05, bytesMessages: 20, inFlightMessages: 2000 },
    });
    const names = results.metrics.map((metric) => metric.name);
    for (const policy of ['none', 'always', 'group']) {
      expect(names).toContain(`queue.A.${policy}.cyclesPerSec`);
      expect(names).toContain(`queue.B.${policy}.cyclesPerSec`);
    }
    expect(names).toContain('queue.B.inFlightTrackingBytesPerMsg');
    const fsyncs = results.metrics.find(
      (metric) => metric.name === 'queue.A.always.fdatasyncsPerMsg',
    )!;
    // One fdatasync for the send and one for the delete of each of the 20 messages, one at close.
    expect(fsyncs.median).toBe((2 * 20 + 1) / 20);
  });

  it('codec times each CPU-bound step with tinybench, and counts what the code decides', async () => {
    const results = await runTiny(codecBench, {
      dir: newDir(),
      drops: 'refused',
      params: { taskMs: 20 },
    });
    const timed = results.metrics.filter((metric) => metric.class === 'timing');
    expect(timed.map((metric) => metric.name)).toEqual([
      'codec.crc32c.latencyNs',
      'codec.encode.latencyNs',
      'codec.checkAndDecode.latencyNs',
      'codec.indexSearch.latencyNs',
    ]);
    for (const metric of timed) expect(metric.count).toBeGreaterThan(0);
    const counter = (name: string) => results.metrics.find((metric) => metric.name === name);
    // A 1 KiB body behind the 16-byte header.
    expect(counter('codec.encode.recordBytes')).toMatchObject({ class: 'counter', median: 1040 });
    // A binary search of 16,384 entries reads 14 or 15 keys.
    const comparisons = counter('codec.indexSearch.comparisonsPerSearch')!.median;
    expect(comparisons).toBeGreaterThanOrEqual(14);
    expect(comparisons).toBeLessThanOrEqual(15);
  });

  it('retention times each removal beside the plain close and unlink, round by round', async () => {
    const results = await runTiny(retentionBench, {
      dir: newDir(),
      drops: 'refused',
      params: { rounds: 2, segments: 2, segmentBytes: MiB },
    });
    const samples = (name: string) =>
      results.metrics.find((metric) => metric.name === `retention.${name}`)!.samples!;
    const plain = samples('plainUnlink.loopHeldNs');
    expect(plain).toHaveLength(2);
    for (const policy of ['none', 'always']) {
      const held = samples(`${policy}.loopHeldNs`);
      expect(held.every((ns) => ns > 0)).toBe(true);
      expect(samples(`${policy}.vsPlainUnlink`)).toEqual(held.map((ns, i) => ns / plain[i]!));
    }
  });

  it('hot-paths gives the hot figures of the storage bench in seconds, the lookup beside a pread', async () => {
    const results = await runTiny(hotPathsBench, {
      dir: newDir(),
      drops: 'refused',
      params: {
        rounds: 2,
        roundSeconds: 0.02,
        lookupLogBytes: 2 * MiB,
        lookupsPerRound: 500,
        recoverySegmentBytes: 2 * MiB,
      },
    });
    const metric = (name: string) => results.metrics.find((candidate) => candidate.name === name)!;
    for (const name of ['append.none.vsChecksummedFs', 'append.always.vsRawFs']) {
      expect(metric(name)).toMatchObject({
        kind: 'ratio',
        samples: [expect.any(Number), expect.any(Number)],
      });
    }
    const lookup = metric('lookup.warm.p50Ns').samples!;
    const pread = metric('lookup.warm.preadP50Ns').samples!;
    expect(pread.every((ns) => ns > 0)).toBe(true);
    expect(metric('lookup.warm.checkedPreadP50Ns').samples).toHaveLength(2);
    expect(metric('lookup.warm.vsPread').samples).toEqual(lookup.map((ns, i) => ns / pread[i]!));
    expect(metric('recovery.scan.bytesPerSec').samples).toHaveLength(2);
  });
});
