/**
 * The runner drives two checkouts through their command lines. Here two stand-in checkouts (a
 * package.json named loglab whose CLI writes a results document, no measurement) record the
 * order they ran in and give a figure scaled by a factor of their own.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { sampleResults } from '../../test/fixtures/sample-results.js';
import { counterMetric, metricFromSamples } from '../metric.js';
import type { Checkout } from './checkout.js';
import { comparePaired } from './paired.js';
import { type Workload, mergeRuns, runInPairs } from './paired-runs.js';

const newDir = tempDirs('paired-runs');
const NODE_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));

/** A template document the stand-in CLI copies, scaling every rate by its factor. */
const TEMPLATE = sampleResults({
  experiment: { id: 'bench-hot-paths', question: 'q?' },
  metrics: [
    metricFromSamples(
      'append.ratePerSec',
      'ops/s',
      [1, 1, 1, 1, 1, 1].map((f) => f * 1e5),
      {
        class: 'timing',
        direction: 'higher',
      },
    ),
    counterMetric('send.writeBytesPerMsg', 'B/msg', 1_040, 'lower'),
  ],
});

const CLI = `
import * as fs from 'node:fs';
import * as path from 'node:path';
const [command, ...rest] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const { factor, name, refuses } = JSON.parse(fs.readFileSync(path.join(here, 'side.json'), 'utf8'));
fs.appendFileSync(path.join(process.env.TMPDIR, 'order.log'), name + ' ' + command + ' ' + rest[0] + '\\n');
if (command === refuses) { console.error('loglab: unknown suite'); process.exit(2); }
const doc = JSON.parse(fs.readFileSync(path.join(here, 'template.json'), 'utf8'));
for (const metric of doc.metrics) if (metric.unit === 'ops/s') metric.median *= factor;
const out = command === 'ci' ? rest[2] : path.join(rest[rest.indexOf('--out') + 1], 'r.json');
fs.writeFileSync(out, JSON.stringify(doc));
`;

function standIn(name: string, factor: number, refuses = ''): Checkout {
  const root = newDir();
  fs.writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'loglab', scripts: { loglab: 'tsx cli.ts' } }),
  );
  fs.writeFileSync(path.join(root, 'cli.ts'), CLI);
  fs.writeFileSync(path.join(root, 'template.json'), JSON.stringify(TEMPLATE));
  fs.writeFileSync(path.join(root, 'side.json'), JSON.stringify({ factor, name, refuses }));
  fs.symlinkSync(NODE_MODULES, path.join(root, 'node_modules'));
  return { root, entry: 'cli.ts', commit: '0'.repeat(40), dirty: false };
}

function run(
  sides: [Checkout, Checkout],
  pairs: number,
  optional = false,
  workloads: Workload[] = [{ kind: 'ci' }, { kind: 'bench', name: 'hot-paths' }],
) {
  const measureDir = newDir();
  const result = runInPairs(
    [
      { label: 'old', checkout: sides[0] },
      { label: 'new', checkout: sides[1] },
    ],
    workloads,
    () => optional,
    { pairs, measureDir, outDir: newDir(), full: false, progress: () => {} },
  );
  const order = fs.readFileSync(path.join(measureDir, 'order.log'), 'utf8').trim().split('\n');
  return { ...result, order };
}

describe('two builds run in turns', () => {
  it('alternates which build goes first, pair by pair, each workload in adjacent runs', () => {
    const { runs, order } = run([standIn('old', 1), standIn('new', 1)], 3);
    expect(order).toEqual([
      'old ci --update-baseline',
      'new ci --update-baseline',
      'old bench hot-paths',
      'new bench hot-paths',
      'new ci --update-baseline',
      'old ci --update-baseline',
      'new bench hot-paths',
      'old bench hot-paths',
      'old ci --update-baseline',
      'new ci --update-baseline',
      'old bench hot-paths',
      'new bench hot-paths',
    ]);
    expect(runs.map((workload) => workload.current.length)).toEqual([3, 3]);
  });

  it('gives the verdict a build 20% slower earns', () => {
    const bench: Workload = { kind: 'bench', name: 'hot-paths' };
    const { runs } = run([standIn('old', 1), standIn('new', 0.8)], 6, false, [bench]);
    const comparison = comparePaired(runs[0]!);
    expect(comparison.failures.map((metric) => metric.name)).toEqual(['append.ratePerSec']);
    expect(comparison.failures[0]!.change).toBeCloseTo(-0.2, 6);
    expect(mergeRuns(runs[0]!.current).metrics[0]).toMatchObject({ median: 8e4, count: 6 });
  });

  it('leaves out a workload an older baseline cannot run, when it may', () => {
    const sides: [Checkout, Checkout] = [standIn('old', 1, 'bench'), standIn('new', 1)];
    const { runs, dropped } = run(sides, 2, true);
    expect(runs.map((workload) => workload.current.length)).toEqual([2]);
    expect(dropped[0]).toMatch(
      /^bench hot-paths: old cannot run `bench hot-paths`: exit 2: loglab: unknown suite/,
    );
    expect(() => run(sides, 2, false)).toThrow(/old cannot run `bench hot-paths`/);
  });
});
