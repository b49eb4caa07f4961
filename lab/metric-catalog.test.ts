import { describe, expect, it } from 'vitest';
import { assertDeclared, declarationOf, declareMetrics } from './metric-catalog.js';
import { metricFromSamples } from './metric.js';
import type { Results } from './results.js';

const M = declareMetrics('demo', {
  msgsPerSec: {
    unit: 'msgs/s',
    class: 'timing',
    direction: 'higher',
    labels: ['design'],
    title: 'throughput',
  },
  ratioBA: { unit: 'ratio', class: 'timing', direction: 'higher', ratio: true, labels: [] },
  fsyncsPerMsg: { unit: 'fsyncs/msg', class: 'counter', direction: 'lower', labels: ['policy'] },
  groupFsyncsPerMsg: {
    quantity: 'fsyncsPerMsg',
    unit: 'fsyncs/msg',
    class: 'measurement',
    direction: 'lower',
    labels: ['policy'],
  },
});

describe('declared metrics', () => {
  it('emit under the declared unit, class, direction and kind', () => {
    const rate = M.msgsPerSec.fromSamples('demo.A.msgsPerSec', [1, 2, 3, 4, 5, 6], { design: 'A' });
    expect(rate).toMatchObject({
      unit: 'msgs/s',
      class: 'timing',
      direction: 'higher',
      kind: 'timing',
      median: 3.5,
      count: 6,
      labels: { design: 'A' },
    });
    expect(rate.ci95).toBeDefined();
    expect(M.ratioBA.measured('demo.always.ratioBA', 2, {}).kind).toBe('ratio');
    const counter = M.fsyncsPerMsg.counter('demo.A.always.fsyncsPerMsg', 1, { policy: 'always' });
    expect(counter).toMatchObject({ kind: 'counter', class: 'counter', median: 1 });
  });

  it('refuse a name that does not end in the quantity, an undeclared label, the wrong builder', () => {
    expect(() => M.msgsPerSec.measured('demo.A.rate', 1, {})).toThrow(/must end in .msgsPerSec/);
    expect(() => M.msgsPerSec.measured('demo.A.msgsPerSec', 1, { policy: 'x' })).toThrow(
      /label\(s\) policy .* not declared/,
    );
    expect(() => M.msgsPerSec.counter('demo.A.msgsPerSec', 1, {})).toThrow(/not a counter/);
    expect(() => M.fsyncsPerMsg.measured('demo.A.fsyncsPerMsg', 1, {})).toThrow(/is a counter/);
    expect(() =>
      declareMetrics('demo', {
        bad: { unit: 'x', class: 'counter', direction: 'lower', ratio: true, labels: [] },
      }),
    ).toThrow(/not a ratio/);
  });

  it('adopt a runner metric under the declared name, refusing the wrong direction', () => {
    const runner = metricFromSamples('demo.A.ratePerSec', 'ops/s', [10, 11, 12], {
      class: 'timing',
      direction: 'higher',
      labels: { design: 'A' },
    });
    const adopted = M.msgsPerSec.adopt('demo.A.msgsPerSec', runner);
    expect(adopted).toMatchObject({
      name: 'demo.A.msgsPerSec',
      unit: 'msgs/s',
      median: 11,
      labels: { design: 'A' },
    });
    const latency = { ...runner, direction: 'lower' as const };
    expect(() => M.msgsPerSec.adopt('demo.A.msgsPerSec', latency)).toThrow(/higher is better/);
  });

  it('tell two declarations of one quantity apart by class, and find them in a document', () => {
    const synced = M.fsyncsPerMsg.counter('demo.A.always.fsyncsPerMsg', 1, { policy: 'always' });
    const shared = M.groupFsyncsPerMsg.measured('demo.A.group.fsyncsPerMsg', 0.2, {
      policy: 'group',
    });
    expect(declarationOf(M, synced)?.key).toBe('fsyncsPerMsg');
    expect(declarationOf(M, shared)?.key).toBe('groupFsyncsPerMsg');
    const doc = { experiment: { id: 'demo' }, metrics: [synced, shared] } as unknown as Results;
    expect(M.groupFsyncsPerMsg.in(doc).map((metric) => metric.name)).toEqual([
      'demo.A.group.fsyncsPerMsg',
    ]);
    const other = { ...doc, experiment: { id: 'other' } } as Results;
    expect(M.fsyncsPerMsg.in(other)).toEqual([]);
  });

  it('keep an optional human title for reports, without writing it into the results', () => {
    expect(M.msgsPerSec.title).toBe('throughput');
    expect(M.ratioBA.title).toBeNull();
    const rate = M.msgsPerSec.measured('demo.A.msgsPerSec', 3, { design: 'A' });
    expect(Object.keys(rate)).not.toContain('title');
    expect(() =>
      declareMetrics('demo', {
        blank: { unit: 'x', class: 'timing', direction: 'lower', labels: [], title: ' ' },
      }),
    ).toThrow(/title, when given, is not blank/);
  });

  it('catch a metric emitted around the catalog', () => {
    const stray = metricFromSamples('demo.A.latencyNs', 'ns', [1, 2], {
      class: 'timing',
      direction: 'lower',
    });
    expect(() => assertDeclared('demo', M, [stray])).toThrow(/demo.A.latencyNs \(ns, timing/);
    const typo = { ...M.msgsPerSec.measured('demo.A.msgsPerSec', 1, {}), unit: 'ops/s' };
    expect(() => assertDeclared('demo', M, [typo])).toThrow(/does not declare/);
  });
});
