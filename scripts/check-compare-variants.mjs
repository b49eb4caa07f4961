// Writes the worsened copies scripts/check-compare.sh feeds to `loglab compare` (issue 15):
// for every varying metric the plain rerun's comparison gated (within-run ratios, measurements
// of 6 rounds a side; timings under --gate-timings) and for one nonzero counter per experiment
// (counters are compared exactly, so one stands for all), a copy of the second run's results
// file with that metric alone made 50% worse; where the metric's measured CV is below 3% on both
// runs (a counter's is 0) and the threshold it was judged by is below 10% (not a measurement's),
// one copy made 10% worse; and for one counter per experiment whose value is 0
// and lower is better (a promise: nothing lost, nothing rescanned), a copy where it is 1. "Worse" follows the metric's direction: a
// higher-is-better figure is multiplied by 0.5 (0.9), a lower-is-better one by 1.5 (1.1).
//
// usage: node check-compare-variants.mjs RERUN_COMPARISON.json RUN1_DIR RUN2_DIR OUT_DIR
// Prints one line per copy: "<experiment-file> <variant-dir> <metric> <worse-by> <cv>".
import * as fs from 'node:fs';
import * as path from 'node:path';

const [comparisonFile, run1Dir, run2Dir, outDir] = process.argv.slice(2);
const LOW_CV = 0.03;
const SCALED_FIELDS = ['median', 'p50', 'p90', 'p99', 'p999', 'max', 'mad'];

const parsed = JSON.parse(fs.readFileSync(comparisonFile, 'utf8'));
const comparisons = Array.isArray(parsed) ? parsed : [parsed];

function fileOf(dir, comparison) {
  return path.join(dir, path.basename(comparison.currentFile));
}

function metricIn(doc, name) {
  const metric = doc.metrics.find((candidate) => candidate.name === name);
  if (metric === undefined) throw new Error(`no metric ${name} in ${doc.experiment.id}`);
  return metric;
}

/** The metric's CV, or 0 for a counter; null when it carries none (one value, no samples). */
function cvOf(metric) {
  if (metric.class === 'counter') return 0;
  return typeof metric.cv === 'number' ? metric.cv : null;
}

function worsen(metric, worseBy) {
  if (worseBy === 'one') {
    metric.median = 1;
    return;
  }
  const factor = metric.direction === 'higher' ? 1 - worseBy : 1 + worseBy;
  const scale = (value) => value * factor;
  for (const field of SCALED_FIELDS) {
    if (typeof metric[field] === 'number') metric[field] = scale(metric[field]);
  }
  if (metric.samples) metric.samples = metric.samples.map(scale);
  if (metric.ci95) metric.ci95 = metric.ci95.map(scale).sort((a, b) => a - b);
}

let variant = 0;
function writeVariant(comparison, name, worseBy, cv) {
  const source = fileOf(run2Dir, comparison);
  const doc = JSON.parse(fs.readFileSync(source, 'utf8'));
  worsen(metricIn(doc, name), worseBy);
  const dir = path.join(outDir, String(variant++));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, path.basename(source)), JSON.stringify(doc, null, 2));
  const shownCv = cv === null ? '-' : `${(cv * 100).toFixed(2)}%`;
  const shownWorse = worseBy === 'one' ? '0→1' : `${worseBy * 100}%`;
  console.log(`${path.basename(source)} ${dir} ${name} ${shownWorse} ${shownCv}`);
}

/** The gated metrics to worsen by a share: every varying one, the first nonzero counter. */
function targets(comparison) {
  const gated = comparison.metrics.filter((metric) => metric.gated);
  const firstCounter = gated.find((metric) => metric.class === 'counter' && metric.current !== 0);
  return gated.filter((metric) =>
    metric.class !== 'counter' ? metric.current !== 0 : metric === firstCounter,
  );
}

/** The first gated counter that is 0 and should stay so: 0 made 1 must fail too. */
function zeroPromise(comparison) {
  return comparison.metrics.find(
    (metric) =>
      metric.gated &&
      metric.class === 'counter' &&
      metric.current === 0 &&
      metric.direction === 'lower',
  );
}

for (const comparison of comparisons) {
  const before = JSON.parse(fs.readFileSync(fileOf(run1Dir, comparison), 'utf8'));
  const after = JSON.parse(fs.readFileSync(fileOf(run2Dir, comparison), 'utf8'));
  for (const judged of targets(comparison)) {
    const cvs = [cvOf(metricIn(before, judged.name)), cvOf(metricIn(after, judged.name))];
    const cv = cvs.includes(null) ? null : Math.max(...cvs);
    writeVariant(comparison, judged.name, 0.5, cv);
    const belowTenPercent = (judged.thresholdRatio ?? 0) < 0.1;
    if (cv !== null && cv < LOW_CV && belowTenPercent) {
      writeVariant(comparison, judged.name, 0.1, cv);
    }
  }
  const zero = zeroPromise(comparison);
  if (zero !== undefined) writeVariant(comparison, zero.name, 'one', 0);
}
