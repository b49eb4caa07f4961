/**
 * A comparison (lab/compare/compare.ts) as a JUnit XML report, what GitLab's
 * `artifacts:reports:junit`, Jenkins and most test reporters read:
 *
 *   <testsuites name="loglab compare" tests failures errors skipped>
 *     <testsuite name="<experiment id>" tests failures errors skipped>  one per experiment
 *       <properties> baseline, current, threshold, measurementThreshold, timings </properties>
 *       <testcase classname="loglab.<experiment id>" name="<metric name>" time="0">
 *         <failure message type="regressed">…</failure>     a gated metric that regressed
 *         <skipped message="…"/>                             a metric reported, not gated
 *       </testcase>                                          (empty: a gated metric that held)
 *       <system-out> the comparison's warnings </system-out>
 *
 * Every gated metric is a test, failed when it regressed; every other metric (raw timings without
 * `--gate-timings`, informational ones, per-round figures of too few rounds) is a skipped test
 * whose message says why it is not gated (the comparison's own reason) and what it did.
 */
import type { Comparison, MetricComparison } from '../compare/compare.js';
import { formatFigure } from '../format.js';
import { escapeXmlAttribute, escapeXmlText } from './xml-escape.js';

const percent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`;
const figure = (value: number, unit: string) => `${formatFigure(value)} ${unit}`;

function changeOf(metric: MetricComparison): string {
  if (metric.change === null) {
    return `${metric.difference > 0 ? '+' : ''}${figure(metric.difference, metric.unit)}`;
  }
  if (metric.class !== 'counter') return percent(metric.change);
  return (
    `${percent(metric.change)} (${metric.difference > 0 ? '+' : ''}` +
    `${formatFigure(metric.difference)})`
  );
}

function intervalOf(metric: MetricComparison): string {
  if (metric.ci95 !== null) {
    return `[${percent(metric.ci95[0])}, ${percent(metric.ci95[1])}] (95%, of the change)`;
  }
  return metric.class === 'counter' ? 'exact (counter)' : (metric.intervalNote ?? 'unavailable');
}

/** `baseline 1,016 B/msg, current 1,017 B/msg, change +0.1% (+1), interval exact (counter)`. */
export function describeChange(metric: MetricComparison): string {
  return (
    `baseline ${figure(metric.baseline, metric.unit)}, ` +
    `current ${figure(metric.current, metric.unit)}, change ${changeOf(metric)}, ` +
    `interval ${intervalOf(metric)}`
  );
}

const attributes = (values: Readonly<Record<string, string | number>>): string =>
  Object.entries(values)
    .map(([key, value]) => ` ${key}="${escapeXmlAttribute(String(value))}"`)
    .join('');

function testcase(metric: MetricComparison, comparison: Comparison): string[] {
  const open = `    <testcase${attributes({
    classname: `loglab.${comparison.experimentId}`,
    name: metric.name,
    time: 0,
  })}`;
  if (metric.notGated !== null) {
    const message = `${metric.verdict}, not gated (${metric.notGated}): ${describeChange(metric)}`;
    return [`${open}>`, `      <skipped${attributes({ message })}/>`, '    </testcase>'];
  }
  if (metric.verdict !== 'regressed') return [`${open}/>`];
  const message = `regressed: ${describeChange(metric)}`;
  const body =
    `${metric.name} (${metric.class}${metric.kind === 'ratio' ? ' ratio' : ''}, ` +
    `${metric.direction} is better) regressed\n${describeChange(metric)}\n` +
    `baseline: ${comparison.baselineFile}\ncurrent: ${comparison.currentFile}`;
  return [
    `${open}>`,
    `      <failure${attributes({ message, type: 'regressed' })}>${escapeXmlText(body)}</failure>`,
    '    </testcase>',
  ];
}

interface Tally {
  readonly tests: number;
  readonly failures: number;
  readonly errors: number;
  readonly skipped: number;
}

function tally(comparisons: readonly Comparison[]): Tally {
  const metrics = comparisons.flatMap((comparison) => comparison.metrics);
  return {
    tests: metrics.length,
    failures: comparisons.reduce((sum, comparison) => sum + comparison.failures.length, 0),
    errors: 0,
    skipped: metrics.filter((metric) => !metric.gated).length,
  };
}

function testsuite(comparison: Comparison): string[] {
  const properties = {
    baseline: comparison.baselineFile,
    current: comparison.currentFile,
    threshold: `${(comparison.thresholdRatio * 100).toFixed(1)}%`,
    measurementThreshold: `${(comparison.measurementThresholdRatio * 100).toFixed(1)}%`,
    timings: comparison.gateTimings ? 'gated' : 'reported only',
  };
  const warnings = comparison.warnings.map((warning) => `warning: ${warning}`).join('\n');
  return [
    `  <testsuite${attributes({ name: comparison.experimentId, ...tally([comparison]) })}>`,
    '    <properties>',
    ...Object.entries(properties).map(
      ([name, value]) => `      <property${attributes({ name, value })}/>`,
    ),
    '    </properties>',
    ...comparison.metrics.flatMap((metric) => testcase(metric, comparison)),
    ...(warnings === '' ? [] : [`    <system-out>${escapeXmlText(warnings)}</system-out>`]),
    '  </testsuite>',
  ];
}

export function toJunitXml(comparisons: readonly Comparison[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'loglab compare', ...tally(comparisons) })}>`,
    ...comparisons.flatMap(testsuite),
    '</testsuites>',
    '',
  ].join('\n');
}
