import { describe, expect, it } from 'vitest';
import { groupOf } from '../../test/fixtures/experiment-groups.js';
import {
  onMachine,
  sampleAllExperiments,
  sampleCrashSafety,
  sampleDurability,
  samplePuzzle,
  sampleQueueDepth,
  sampleScanVsLookup,
  sampleSegmentSize,
  sampleUnknownExperiment,
} from '../../test/fixtures/sample-experiments.js';
import type { Results } from '../../lab/results.js';
import { experimentCharts, type ExperimentChart } from './experiment-charts.js';
import type { ChartPoint } from './panel-points.js';
import { axisScale } from './vega-lite-spec.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests walk deep into generated Vega-Lite JSON
type Json = Record<string, any>;

function chartOf(results: Results, chartId: string): ExperimentChart {
  const found = experimentCharts(groupOf(results)).find((chart) => chart.def.id === chartId);
  if (found === undefined) throw new Error(`no chart ${chartId}`);
  return found;
}

/** The layers of a single-panel spec, faceted or not. */
function layersOf(spec: Json): Json[] {
  return (spec.layer ?? spec.spec?.layer) as Json[];
}

function pointsOf(spec: Json): ChartPoint[] {
  return spec.data.values as ChartPoint[];
}

function layerWith(spec: Json, markType: string, predicted: boolean): Json | undefined {
  const filter = predicted ? 'datum.predicted === true' : 'datum.predicted === false';
  return layersOf(spec).find(
    (layer) =>
      layer.mark.type === markType && layer.transform.some((step: Json) => step.filter === filter),
  );
}

describe('the puzzle throughput chart', () => {
  const spec = chartOf(samplePuzzle(), 'throughput').spec as Json;
  const bars = layerWith(spec, 'bar', false);

  it('plots msgs/s on a log axis of whole decades with the unit in its title', () => {
    expect(bars?.encoding.y.field).toBe('y');
    expect(bars?.encoding.y.scale).toEqual({ type: 'log', domain: [10, 1_000_000] });
    expect(bars?.encoding.y.title).toBe('throughput (msgs/s, log scale)');
    expect(bars?.encoding.y.axis.values).toEqual([10, 100, 1e3, 1e4, 1e5, 1e6]);
  });

  it('starts log-scale bars at the bottom of the axis, not at zero', () => {
    expect(bars?.encoding.y2).toEqual({ datum: 10 });
  });

  it('sets the three comparisons side by side, each category a line per guarantee', () => {
    expect(bars?.encoding.x.sort).toEqual([
      'always; every send synced; A: each delete synced; B: head per 1,000 deletes',
      'group; sends share a sync; A: deletes share it; B: head per 1,000 deletes',
      "the course's; A: synced per message; B: streamed, one sync a round",
      'none; no sync (page cache)',
    ]);
    expect(bars?.encoding.x.axis.labelExpr).toBe("split(datum.label, '; ')");
  });

  it('colours bars by design, naming A the slot file and B the log', () => {
    expect(bars?.encoding.color.field).toBe('series');
    expect(bars?.encoding.color.title).toBe('design (A = slot file, B = log)');
    expect(bars?.encoding.xOffset.field).toBe('series');
    const always = pointsOf(spec).filter(
      (p) => !p.predicted && p.x.toString().startsWith('always'),
    );
    expect(always.map((p) => p.series)).toEqual([
      'A: slot file',
      'B: log',
      'B: log · head saved at each delete',
    ]);
  });

  it("puts the course's comparison in its own category: A synced beside B streaming", () => {
    const course = pointsOf(spec).filter(
      (p) => !p.predicted && p.x.toString().startsWith('the course'),
    );
    expect(course.map((p) => [p.series, p.y])).toEqual([
      ['B: log', 180_000],
      ['A: slot file', 52],
    ]);
  });

  it('draws error bars from the 95% interval of each measured median', () => {
    const rule = layerWith(spec, 'rule', false);
    expect(rule?.encoding.y.field).toBe('yLow');
    expect(rule?.encoding.y2.field).toBe('yHigh');
    const measuredA = pointsOf(spec).find(
      (p) => !p.predicted && p.x.toString().startsWith('always') && p.series === 'A: slot file',
    );
    expect(measuredA).toMatchObject({ y: 52, yLow: 52 * 0.95, yHigh: 52 * 1.05 });
  });

  it('draws each model prediction as a hollow mark shaped by its model beside its bar', () => {
    const predicted = layerWith(spec, 'point', true);
    expect(predicted?.mark.fill).toBe('white');
    expect(predicted?.encoding.shape.field).toBe('model');
    expect(predicted?.encoding.shape.scale.domain).toEqual([
      'course',
      'hdd:exos-x20',
      'ssd:990-pro',
    ]);
    expect(predicted?.encoding.xOffset.field).toBe('series');
    // Vega-Lite would stroke the legend's symbols `transparent` without this.
    expect(predicted?.encoding.shape.legend.encode.symbols.update.stroke).toEqual({
      value: '#222222',
    });
    // The course's 278,000 a second is B streaming, never B synced per message.
    const courseB = pointsOf(spec).filter((p) => p.model === 'course' && p.series === 'B: log');
    expect(courseB).toHaveLength(1);
    expect(courseB[0]).toMatchObject({ y: 278_000, predicted: true });
    expect(courseB[0]?.x).toMatch(/^the course's; /);
    expect(spec.title.subtitle.join(' ')).toContain('model predictions');
  });
});

describe('chart panels', () => {
  it('plot p99 latency against queue depth in numeric order, one series per method and engine', () => {
    const chart = chartOf(sampleQueueDepth(), 'p99-latency');
    const data = chart.panels[0];
    expect(data?.xSort).toEqual(['1', '2', '4', '8', '16', '32', '64']);
    expect(data?.seriesSort).toContain('random-write · io_uring');
    const metric = sampleQueueDepth().metrics.find(
      (m) => m.name === 'queue-depth.append.libuv.8.latencyNs',
    );
    const point = data?.points.find((p) => p.series === 'append · libuv' && p.x === '8');
    const divisor = data?.yUnit === 'µs' ? 1e3 : data?.yUnit === 'ms' ? 1e6 : 1;
    expect(point?.y).toBeCloseTo((metric?.p99 ?? 0) / divisor);
    expect(point?.yLow).toBeNull();
  });

  it('pair throughput with p99 latency by labels and join the points in producer order', () => {
    const spec = chartOf(sampleDurability(), 'throughput-latency').spec as Json;
    const points = pointsOf(spec);
    const always16 = points.find((p) => p.series === 'always' && p.order === 16);
    expect(always16?.x).toBeCloseTo(350 * 4);
    expect(always16?.xLow).toBeCloseTo(350 * 4 * 0.95);
    const line = layerWith(spec, 'line', false);
    expect(line?.encoding.order.field).toBe('order');
    expect(line?.encoding.x.scale.type).toBe('log');
    expect(line?.encoding.x.title).toBe('throughput (msgs/s, log scale)');
    expect(points.filter((p) => p.series === 'group · 0.1 ms')).toHaveLength(4);
  });

  it('split scan and lookup times into one facet per cache state', () => {
    const spec = chartOf(sampleScanVsLookup(), 'time').spec as Json;
    expect(spec.facet).toMatchObject({ field: 'facet', title: 'cache', sort: ['warm', 'cold'] });
    expect(spec.columns).toBe(2);
    const line = layerWith(spec, 'line', false);
    expect(line?.encoding.x.type).toBe('quantitative');
    expect(line?.encoding.x.title).toBe('target position in the segment (MiB)');
  });

  it('stay linear when the figures span less than 100× or include zero', () => {
    expect(axisScale([1_500, 3_100])).toEqual({ log: false, domain: null });
    expect(axisScale([0, 1_240])).toEqual({ log: false, domain: null });
    expect(axisScale([2, 400])).toEqual({ log: true, domain: [1, 1000] });
    const spec = chartOf(sampleCrashSafety(), 'lost-messages').spec as Json;
    expect(layerWith(spec, 'bar', false)?.encoding.y.scale).toEqual({});
  });

  it('put several quantities of one chart side by side, each with its own unit', () => {
    const spec = chartOf(sampleSegmentSize(), 'trade-offs').spec as Json;
    expect(spec.concat).toHaveLength(4);
    const titles = spec.concat.map((panel: Json) => layersOf(panel)[0]?.encoding.y.title);
    expect(titles).toEqual([
      'open time (ms)',
      'median lookup latency (µs)',
      'roll time (µs)',
      'retention lag (MiB, log scale)',
    ]);
    expect(spec.concat[0].layer[0].encoding.x.sort).toEqual([
      '4 MiB',
      '8 MiB',
      '64 MiB',
      '100 MiB',
      '1 GiB',
    ]);
  });

  it('give every machine its own series, named by device, filesystem and kernel', () => {
    const other = onMachine(samplePuzzle(), {
      hostname: 'b',
      deviceModel: 'ST20000NM007D',
      filesystem: 'xfs',
      kernel: '6.8.0',
      speedFactor: 0.5,
    });
    const chart = experimentCharts(groupOf(samplePuzzle(), other)).find(
      (c) => c.def.id === 'throughput',
    );
    expect(chart?.panels[0]?.seriesSort).toEqual([
      'vda · ext4 · Linux 6.1 · A',
      'vda · ext4 · Linux 6.1 · B',
      'vda · ext4 · Linux 6.1 · B · head saved at each delete',
      'ST20000NM007D · xfs · Linux 6.8.0 · A',
      'ST20000NM007D · xfs · Linux 6.8.0 · B',
      'ST20000NM007D · xfs · Linux 6.8.0 · B · head saved at each delete',
    ]);
    expect(chart?.panels[0]?.seriesTitle).toBe('machine · design (A = slot file, B = log)');
  });
});

describe('charts an experiment gets', () => {
  it('give an unknown experiment one bar per metric, a panel per unit', () => {
    const charts = experimentCharts(groupOf(sampleUnknownExperiment()));
    expect(charts.map((chart) => chart.def.id)).toEqual(['figures']);
    const spec = charts[0]?.spec as Json;
    expect(spec.concat).toHaveLength(2);
    const nsPanel = spec.concat[0];
    expect(
      pointsOf(nsPanel)
        .filter((p) => !p.predicted)
        .map((p) => p.x),
    ).toEqual(['mystery.fast.latencyNs', 'mystery.slow.latencyNs']);
    expect(
      pointsOf(nsPanel)
        .filter((p) => p.predicted)
        .map((p) => p.model),
    ).toEqual(['hdd:exos-x20']);
    expect(pointsOf(spec.concat[1]).map((p) => p.x)).toEqual(['mystery.bytesPerOp']);
  });

  it('leave out charts whose quantity was not recorded, falling back to the generic chart', () => {
    const onlyThroughput = samplePuzzle();
    onlyThroughput.metrics = onlyThroughput.metrics.filter((m) => m.name.endsWith('msgsPerSec'));
    expect(experimentCharts(groupOf(onlyThroughput)).map((c) => c.def.id)).toEqual(['throughput']);
    const nothingKnown = samplePuzzle();
    nothingKnown.metrics = nothingKnown.metrics.filter((m) => m.name.endsWith('fsyncsPerMsg'));
    expect(experimentCharts(groupOf(nothingKnown)).map((c) => c.def.id)).toEqual(['figures']);
  });

  it('title every y axis with its unit for every sample experiment', () => {
    for (const results of sampleAllExperiments()) {
      for (const chart of experimentCharts(groupOf(results))) {
        const spec = chart.spec as Json;
        const panels: Json[] = spec.concat ?? [spec];
        for (const [index, panel] of panels.entries()) {
          const unit = chart.panels[index]?.yUnit;
          expect(layersOf(panel)[0]?.encoding.y.title, `${chart.def.id}`).toContain(`(${unit}`);
        }
      }
    }
  });
});
