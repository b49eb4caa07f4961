/**
 * action.yml, the composite GitHub Action, checked as far as is possible without GitHub: its
 * inputs and outputs, that every loglab command and option its steps call exists in the CLI,
 * and its input-checking and comparing steps run for real under bash, as a runner runs them
 * (`bash --noprofile --norc -eo pipefail`), against copies of docs/sample-report.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import {
  type YamlMapping,
  type YamlValue,
  parseYamlSubset,
} from '../../test/fixtures/yaml-subset.js';
import { buildProgram } from '../../cli/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ACTION_TEXT = fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8');
const SAMPLE = path.join(ROOT, 'docs', 'sample-report');
const newDir = tempDirs('action');

function mapping(value: YamlValue | undefined): YamlMapping {
  expect(value).toBeTypeOf('object');
  expect(Array.isArray(value)).toBe(false);
  return value as YamlMapping;
}

const action = mapping(parseYamlSubset(ACTION_TEXT));
const runs = mapping(action.runs);
const steps = (runs.steps as YamlValue[]).map(mapping);
const stepNamed = (name: string) => steps.find((step) => step.name === name)!;

/** `npx tsx cli/main.ts <command> args…` in every run script, continuation lines joined. */
function loglabCalls(): { command: string; flags: string[] }[] {
  return steps.flatMap((step) => {
    const script = String(step.run ?? '').replace(/\\\n\s*/g, ' ');
    return [...script.matchAll(/npx tsx cli\/main\.ts (\S+)([^\n]*)/g)].map((match) => ({
      command: match[1]!,
      flags: [...match[2]!.matchAll(/(?:^|\s)(--[a-z-]+)/g)].map((flag) => flag[1]!),
    }));
  });
}

describe('action.yml', () => {
  it('is a composite action with the inputs experiments, baseline, dir and fail-on', () => {
    expect(runs.using).toBe('composite');
    expect(action.name).toBe('loglab');
    const inputs = mapping(action.inputs);
    expect(Object.keys(inputs)).toEqual(
      expect.arrayContaining(['experiments', 'baseline', 'dir', 'fail-on']),
    );
    for (const [name, value] of Object.entries(inputs)) {
      const input = mapping(value);
      expect(input.description, name).toMatch(/\S{10}/);
      expect(input.required, name).toBe(false);
      expect(typeof input.default, name).toBe('string');
    }
    expect(mapping(inputs['fail-on']).default).toBe('regression');
  });

  it('uses every input it declares, and declares every input and step output it uses', () => {
    const declared = Object.keys(mapping(action.inputs));
    const used = [...ACTION_TEXT.matchAll(/\$\{\{ inputs\.([\w-]+) \}\}/g)].map((m) => m[1]!);
    expect(new Set(used)).toEqual(new Set(declared));
    for (const [, id, output] of ACTION_TEXT.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
      const step = steps.find((candidate) => candidate.id === id);
      expect(step, `step ${id}`).toBeDefined();
      expect(String(step!.run), `${id} writes ${output}`).toMatch(new RegExp(`${output}=`));
    }
  });

  it('runs shell only with bash and never pastes an expression into a script', () => {
    for (const step of steps.filter((candidate) => candidate.run !== undefined)) {
      expect(step.shell, String(step.name)).toBe('bash');
      expect(String(step.run), String(step.name)).not.toContain('${{');
    }
  });

  it('calls only loglab commands and options that exist', () => {
    const program = buildProgram();
    const calls = loglabCalls();
    expect(calls.map((call) => call.command)).toEqual([
      'run',
      'compare',
      'export',
      'ci',
      'compare',
    ]);
    for (const { command, flags } of calls) {
      const known = program.commands.find((candidate) => candidate.name() === command);
      expect(known, command).toBeDefined();
      const options = known!.options.map((option) => option.long);
      for (const flag of flags) expect(options, `${command} ${flag}`).toContain(flag);
    }
    expect(calls[0]!.flags).toEqual(expect.arrayContaining(['--quick', '--dir', '--out']));
    expect(calls[1]!.flags).toContain('--format');
    for (const against of calls.slice(3)) {
      expect(against.flags).toEqual(
        expect.arrayContaining(['--against', '--pairs', '--dir', '--junit', '--keep-runs']),
      );
    }
  });
});

interface StepRun {
  readonly code: number;
  readonly stdout: string;
  readonly summary: string;
  readonly outputs: string;
}

/** One step's script as a runner runs it, with the runner's files in a temp directory. */
function runStep(name: string, env: Record<string, string>): StepRun {
  const runner = newDir();
  const summary = path.join(runner, 'summary.md');
  const outputs = path.join(runner, 'output.txt');
  const script = path.join(runner, 'step.sh');
  fs.writeFileSync(script, String(stepNamed(name).run));
  fs.writeFileSync(summary, '');
  fs.writeFileSync(outputs, '');
  const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      RUNNER_TEMP: runner,
      GITHUB_WORKSPACE: '/work/space',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: outputs,
      ...env,
    },
  });
  return {
    code: result.status ?? -1,
    stdout: result.stdout,
    summary: fs.readFileSync(summary, 'utf8'),
    outputs: fs.readFileSync(outputs, 'utf8'),
  };
}

describe('action.yml, its steps run under bash', () => {
  const check = (env: Record<string, string>) =>
    runStep('Check the inputs', {
      LOGLAB_EXPERIMENTS: '',
      LOGLAB_BASELINE: '',
      LOGLAB_DIR: '',
      LOGLAB_OUT: 'loglab-results',
      LOGLAB_FAIL_ON: 'regression',
      LOGLAB_AGAINST: '',
      LOGLAB_PAIRS: '10',
      ...env,
    });

  it('refuses against with a baseline, and pairs that are not a whole number', () => {
    const both = check({ LOGLAB_AGAINST: 'main', LOGLAB_BASELINE: 'docs/sample-report' });
    expect(both.code).toBe(2);
    expect(both.stdout).toContain('::error::loglab: against and baseline: give one of them');
    const pairs = check({ LOGLAB_AGAINST: 'main', LOGLAB_PAIRS: 'ten' });
    expect(pairs.code).toBe(2);
    expect(pairs.stdout).toContain("::error::loglab: pairs: expected a whole number, got 'ten'");
  });

  it('refuses a fail-on it does not know before any work', () => {
    const run = check({ LOGLAB_FAIL_ON: 'regresion' });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      '::error::loglab: fail-on: expected regression or never, got ' + "'regresion'",
    );
  });

  it('resolves paths against the workspace and splits experiment ids', () => {
    const baseline = newDir();
    const run = check({
      LOGLAB_EXPERIMENTS: 'puzzle,recovery\nscan-vs-lookup',
      LOGLAB_BASELINE: baseline,
      LOGLAB_FAIL_ON: 'never',
    });
    expect(run.code).toBe(0);
    expect(run.outputs).toContain('experiments=puzzle recovery scan-vs-lookup\n');
    expect(run.outputs).toContain(`baseline=${baseline}\n`);
    expect(run.outputs).toContain('out=/work/space/loglab-results\n');
    expect(run.outputs).toMatch(/^dir=.*action-.*$/m);
  });

  it('refuses a baseline that is not a directory', () => {
    const run = check({ LOGLAB_BASELINE: 'no-such-baseline' });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('/work/space/no-such-baseline is not a directory');
  });
});

/** A run folder holding docs/sample-report's puzzle.json, its counter edited when asked. */
function runFolder(edit?: (results: { metrics: { name: string; median: number }[] }) => void) {
  const out = newDir();
  const results = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'puzzle.json'), 'utf8'));
  edit?.(results);
  fs.writeFileSync(path.join(out, 'puzzle.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(out, 'report.md'), '# not a results file\n');
  return out;
}

const worseFsyncs = (results: { metrics: { name: string; median: number }[] }) => {
  results.metrics.find((metric) => metric.name === 'puzzle.A.always.fsyncsPerMsg')!.median += 1;
};

// Each run starts loglab under tsx once or twice (seconds each on a busy 2-core machine).
describe('action.yml, the comparing step', { timeout: 180_000 }, () => {
  const compare = (out: string, env: Record<string, string>) =>
    runStep('Compare with the baseline', { LOGLAB_OUT: out, LOGLAB_FAIL_ON: 'regression', ...env });

  it('passes a rerun, writes the table to the job summary and a JUnit report', () => {
    const out = runFolder();
    // The baseline holds every experiment; the run only one of them.
    const run = compare(out, { LOGLAB_BASELINE: SAMPLE });
    expect(run.code).toBe(0);
    expect(run.summary).toContain('### loglab compare: `puzzle`');
    expect(run.summary).toContain('**suite: 1 experiment(s) compared, 0 failing**');
    expect(run.outputs).toBe('regressed=false\n');
    expect(fs.readFileSync(path.join(out, 'loglab-junit.xml'), 'utf8')).toContain(
      '<testsuite name="puzzle"',
    );
  });

  it('fails on a regressed counter with fail-on regression and not with never', () => {
    const out = runFolder(worseFsyncs);
    const failed = compare(out, { LOGLAB_BASELINE: SAMPLE });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('::error::loglab: a gated metric regressed');
    expect(failed.summary).toMatch(/`puzzle\.A\.always\.fsyncsPerMsg` .*❌ regressed/);
    expect(failed.outputs).toBe('regressed=true\n');
    const reported = compare(out, { LOGLAB_BASELINE: SAMPLE, LOGLAB_FAIL_ON: 'never' });
    expect(reported.code).toBe(0);
    expect(reported.stdout).toContain('::warning::loglab: a gated metric regressed');
    expect(reported.outputs).toBe('regressed=true\n');
  });

  it('fails with exit 2 when the baseline lacks an experiment of the run', () => {
    const run = compare(runFolder(), { LOGLAB_BASELINE: newDir(), LOGLAB_FAIL_ON: 'never' });
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/::error::loglab: the baseline .* has no puzzle\.json/);
  });

  it('says in the job summary that nothing was compared without a baseline', () => {
    const out = runFolder();
    const run = compare(out, { LOGLAB_BASELINE: '' });
    expect(run.code).toBe(0);
    expect(run.summary).toContain(
      `No baseline given: nothing was compared. This run is in \`${out}\``,
    );
    expect(run.outputs).toBe('regressed=\n');
  });
});
