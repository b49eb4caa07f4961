/**
 * The experiment contract. An experiment is a plain description plus one function:
 *
 *   export const experiment: Experiment = {
 *     id: 'puzzle',
 *     question: 'why does the log store thousands of times more messages on the same disk?',
 *     params: { messageBytes: { quick: 1024, full: 1024 }, rounds: { quick: 2, full: 5 } },
 *     seed: 42,
 *     metrics: PUZZLE_METRICS, // every quantity it emits (metric-catalog.ts)
 *     charts: PUZZLE_CHARTS, // its charts of them (chart-spec.ts), written into its results
 *     run: async (ctx) => { …measure with the runner…; return ctx.results({ metrics }); },
 *   };
 *
 * The harness hands `run` a LabContext: its own fresh directory on the disk under test, the
 * quick flag and time budget, parameters resolved for that flag, a random source seeded from the
 * experiment's seed, the progress line, the captured environment, and helpers for I/O accounting,
 * cache control and the results document. The harness never imports an experiment; the CLI
 * hands them in (experiments/index.ts).
 */
import { assert } from '../storage/errors.js';
import type { FileIOCounters } from '../storage/io/file-io.js';
import { type BlockDevice, resolveBlockDevice } from './probes/block-device.js';
import {
  type ColdReadFileIO,
  type ColdReadOptions,
  type ColdReads,
  startColdReads,
} from './cold-reads.js';
import { captureEnvironment, ensureFreeSpace } from './probes/env.js';
import { DeviceSharingLog } from './probes/device-share.js';
import { IoPhase, type PhaseIo } from './io.js';
import { assertChartsDeclared } from './chart-spec.js';
import { type MetricCatalog, assertDeclared } from './metric-catalog.js';
import { type ExperimentDeclarations, declaredParts } from './results-declarations.js';
import { type ProgressReporter, silentProgress } from './progress.js';
import { SeededRandom } from '../storage/sim/prng.js';
import type { WarmUp } from './runner.js';
import { SYNCED_ROUND_MIN_SECONDS } from './round-length.js';
import { classifyStorage, notADiskNote } from './probes/storage-kind.js';
import { timerOverheadNs } from './timer-overhead.js';
import { type CpuTimes, cpuStealBetween, cpuStealNote, readCpuTimes } from './probes/cpu-steal.js';
import {
  type Environment,
  type Metric,
  type Prediction,
  RESULTS_SCHEMA,
  type Results,
  parseResults,
} from './results.js';

export type ParamValue = number | string;
export interface ParamSpec {
  readonly quick: ParamValue;
  readonly full: ParamValue;
}

/** Its id, metric catalog and charts (results-declarations.ts), and what it asks and runs. */
export interface Experiment extends ExperimentDeclarations {
  readonly question: string;
  readonly params: Readonly<Record<string, ParamSpec>>;
  readonly seed: number;
  run(ctx: LabContext): Promise<Results>;
}

/** What an experiment measured; the context adds everything else a results document holds. */
export interface ResultsParts {
  readonly metrics: readonly Metric[];
  readonly counters?: Readonly<Record<string, number>>;
  readonly predictions?: readonly Prediction[];
  readonly notes?: readonly string[];
  readonly headline?: string;
}

export interface LabContext {
  readonly experiment: Pick<Experiment, 'id' | 'question' | 'seed'>;
  /** A fresh directory of this experiment's own on the disk under test. */
  readonly dir: string;
  readonly quick: boolean;
  /** How long the experiment should take, in seconds; it divides this among its phases. */
  readonly secondsBudget: number;
  /** Parameters resolved for the quick flag. */
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Seeded from the experiment's seed; fork it for independent streams. */
  readonly random: SeededRandom;
  readonly progress: ProgressReporter;
  readonly environment: Environment;
  /** The disk under `dir`, for I/O accounting; null when it has none. */
  readonly device: BlockDevice | null;
  numberParam(name: string): number;
  stringParam(name: string): string;
  /** Throws NOT_ENOUGH_SPACE when `dir` has less free than `neededBytes`. */
  ensureFreeSpace(neededBytes: number): void;
  /** Starts I/O accounting for a phase on `dir`'s disk, with the storage core's counters. */
  ioPhase(fileIo?: { readonly counters: FileIOCounters }): IoPhase;
  /**
   * Makes the next reads through `ios` cold: drops the page cache, or reads with O_DIRECT (see
   * cold-reads.ts). Notes how, or why cold figures are unavailable, once; call `end()` after.
   */
  startColdReads(ios: readonly ColdReadFileIO[]): ColdReads;
  /**
   * The length of one measured round of a synced phase, given the experiment's share of its
   * budget: raised to SYNCED_ROUND_MIN_SECONDS at the default budgets, since a shorter round
   * measures a disk's first few hundred syncs, not its rate. A budget set by the caller
   * (`--seconds`, tests) is kept, and a note says the rounds were short. Recorded in the results
   * parameters as `syncedRoundSeconds`.
   */
  syncedRoundSeconds(shareSeconds: number): number;
  /**
   * Records a warm-up that ran before the measured rounds and was discarded: its operations and
   * time go into the results counters (`warmUp.<name>.ops`, `warmUp.<name>.elapsedNs`).
   */
  recordWarmUp(name: string, warmUp: WarmUp): void;
  /** Adds a sentence to the results notes. */
  note(text: string): void;
  /** The complete, validated results document. */
  results(parts: ResultsParts): Results;
}

/** Per-experiment time budgets when `--seconds` is not given. */
export const QUICK_SECONDS = 5;
export const FULL_SECONDS = 60;
export const TIMER = 'process.hrtime.bigint';
const EXPERIMENT_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function assertExperiment(experiment: Experiment): void {
  assert(EXPERIMENT_ID.test(experiment.id), `experiment id must be kebab-case: '${experiment.id}'`);
  assert(experiment.question.length > 0, `experiment ${experiment.id} needs a question`);
  assert(Number.isSafeInteger(experiment.seed), `${experiment.id} needs an integer seed`);
  assert(experiment.seed >= 0, `${experiment.id} needs a seed >= 0: ${experiment.seed}`);
  for (const [name, spec] of Object.entries(experiment.params)) {
    const where = `parameter ${experiment.id}.${name}`;
    assert(typeof spec.quick === typeof spec.full, `${where} mixes a number and a string`);
  }
  const { charts = [], metrics } = experiment;
  assert(charts.length === 0 || metrics !== undefined, `${experiment.id} charts no catalog`);
  if (metrics !== undefined) assertChartsDeclared(experiment.id, metrics, charts);
}

export function resolveParams(experiment: Experiment, quick: boolean): Record<string, ParamValue> {
  const params: Record<string, ParamValue> = {};
  for (const [name, spec] of Object.entries(experiment.params)) {
    params[name] = quick ? spec.quick : spec.full;
  }
  return params;
}

export interface ContextOptions {
  readonly dir: string;
  readonly quick: boolean;
  readonly seconds?: number;
  readonly progress?: ProgressReporter;
  /** How cold reads are made (`--cold-reads`), and overrides for tests (uid, /proc file). */
  readonly cacheControl?: ColdReadOptions;
  /** Sentences the caller adds to the notes (why the run measured where it did). */
  readonly notes?: readonly string[];
  /** Where the machine's CPU times come from (lab/probes/cpu-steal.ts); tests give their own. */
  readonly readCpuTimes?: () => CpuTimes | null;
}

/**
 * A headline with the marks that qualify every figure under it (not a disk, a shared disk)
 * appended; the marks alone when the experiment wrote no headline, so no report shows its
 * figures unmarked.
 */
export function markedHeadline(
  headline: string | undefined,
  marks: readonly string[],
): string | undefined {
  if (marks.length === 0) return headline;
  return headline === undefined ? marks.join(' ') : `${headline} ${marks.join(' ')}`;
}

function warmUpNote(warmUps: Readonly<Record<string, number>>): string[] {
  if (Object.keys(warmUps).length === 0) return [];
  return [
    'Each design warmed up before its measured rounds; the warm-up was timed and ' +
      'discarded (counters warmUp.<name>.ops and .elapsedNs), so no figure includes it.',
  ];
}

class ExperimentContext implements LabContext {
  readonly experiment: Pick<Experiment, 'id' | 'question' | 'seed'>;
  readonly dir: string;
  readonly quick: boolean;
  readonly secondsBudget: number;
  readonly params: Readonly<Record<string, ParamValue>>;
  readonly random: SeededRandom;
  readonly progress: ProgressReporter;
  readonly environment: Environment;
  readonly device: BlockDevice | null;
  readonly #notes: string[] = [];
  /** Sentences every headline of this run must carry (markedHeadline). */
  readonly #marks: string[] = [];
  /** Every measured phase's device writes against our own. */
  readonly #sharing = new DeviceSharingLog();
  readonly #cacheControl: ColdReadOptions;
  /** How this run's cold reads were made, once it made any: a parameter of its results. */
  #coldReads: string | null = null;
  readonly #startedAt = new Date().toISOString();
  readonly #readCpuTimes: () => CpuTimes | null;
  readonly #cpuAtStart: CpuTimes | null;
  /** Whether the caller set the budget, which then wins over SYNCED_ROUND_MIN_SECONDS. */
  readonly #budgetGiven: boolean;
  #syncedRoundSeconds: number | null = null;
  readonly #warmUps: Record<string, number> = {};
  readonly #catalog: MetricCatalog | undefined;
  /** The charts and titles every document of this experiment carries. */
  readonly #declared: Pick<Results, 'charts' | 'titles'>;

  constructor(experiment: Experiment, options: ContextOptions) {
    this.experiment = { id: experiment.id, question: experiment.question, seed: experiment.seed };
    this.#catalog = experiment.metrics;
    this.#declared = declaredParts(experiment);
    this.dir = options.dir;
    this.quick = options.quick;
    this.secondsBudget = options.seconds ?? (options.quick ? QUICK_SECONDS : FULL_SECONDS);
    this.#budgetGiven = options.seconds !== undefined;
    this.params = resolveParams(experiment, options.quick);
    this.random = new SeededRandom(experiment.seed);
    this.progress = options.progress ?? silentProgress;
    this.environment = captureEnvironment(options.dir);
    this.device = resolveBlockDevice(options.dir);
    this.#cacheControl = options.cacheControl ?? {};
    this.#readCpuTimes = options.readCpuTimes ?? readCpuTimes;
    this.#cpuAtStart = this.#readCpuTimes();
    if (this.device === null) {
      this.note(`${options.dir} is not on a block device: no device counters`);
    }
    for (const note of options.notes ?? []) this.note(note);
    const notADisk = notADiskNote(classifyStorage(options.dir));
    if (notADisk !== null) this.#mark(notADisk);
  }

  #mark(text: string): void {
    this.#marks.push(text);
    this.note(text);
  }

  numberParam(name: string): number {
    const value = this.params[name];
    assert(typeof value === 'number', `${this.experiment.id} has no number parameter ${name}`);
    return value;
  }

  stringParam(name: string): string {
    const value = this.params[name];
    assert(typeof value === 'string', `${this.experiment.id} has no string parameter ${name}`);
    return value;
  }

  ensureFreeSpace(neededBytes: number): void {
    ensureFreeSpace(this.dir, neededBytes);
  }

  ioPhase(fileIo?: { readonly counters: FileIOCounters }): IoPhase {
    const device = this.device;
    const onEnd = (phase: PhaseIo) => this.#sharing.add(phase);
    return IoPhase.start(fileIo === undefined ? { device, onEnd } : { device, fileIo, onEnd });
  }

  startColdReads(ios: readonly ColdReadFileIO[]): ColdReads {
    const reads = startColdReads(ios, this.dir, this.#cacheControl);
    const note = reads.method === null ? reads.reason : reads.note;
    if (!this.#notes.includes(note)) this.note(note);
    this.#coldReads = reads.method ?? 'unavailable';
    return reads;
  }

  syncedRoundSeconds(shareSeconds: number): number {
    assert(Number.isFinite(shareSeconds), `round seconds must be finite: ${shareSeconds}`);
    assert(shareSeconds > 0, `round seconds must be positive: ${shareSeconds}`);
    const seconds = this.#budgetGiven
      ? shareSeconds
      : Math.max(SYNCED_ROUND_MIN_SECONDS, shareSeconds);
    this.#syncedRoundSeconds = Math.min(this.#syncedRoundSeconds ?? seconds, seconds);
    const short =
      `Synced rounds of ${seconds.toFixed(3)} s, under the ` +
      `${SYNCED_ROUND_MIN_SECONDS} s a disk's rate needs, because the budget was set to ` +
      `${this.secondsBudget} s.`;
    if (seconds < SYNCED_ROUND_MIN_SECONDS && !this.#notes.includes(short)) this.note(short);
    return seconds;
  }

  recordWarmUp(name: string, warmUp: WarmUp): void {
    assert(name.length > 0, 'a warm-up needs a name');
    assert(!(`warmUp.${name}.ops` in this.#warmUps), `warm-up ${name} recorded twice`);
    this.#warmUps[`warmUp.${name}.ops`] = warmUp.ops;
    this.#warmUps[`warmUp.${name}.elapsedNs`] = warmUp.elapsedNs;
  }

  note(text: string): void {
    assert(text.length > 0, 'a note needs text');
    this.#notes.push(text);
  }

  results(parts: ResultsParts): Results {
    if (this.#catalog !== undefined)
      assertDeclared(this.experiment.id, this.#catalog, parts.metrics);
    const shared = this.#sharing.mark();
    const marks = shared === null ? this.#marks : [...this.#marks, shared];
    const headline = markedHeadline(parts.headline, marks);
    const deviceShared = this.#sharing.summary();
    const cpuSteal = cpuStealBetween(this.#cpuAtStart, this.#readCpuTimes());
    const stealNote = cpuStealNote(cpuSteal);
    return parseResults(
      {
        schema: RESULTS_SCHEMA,
        experiment: { id: this.experiment.id, question: this.experiment.question },
        ...(headline === undefined ? {} : { headline }),
        quick: this.quick,
        seed: this.experiment.seed,
        parameters: {
          ...this.params,
          secondsBudget: this.secondsBudget,
          ...(this.#coldReads === null ? {} : { coldReads: this.#coldReads }),
          ...(this.#syncedRoundSeconds === null
            ? {}
            : { syncedRoundSeconds: this.#syncedRoundSeconds }),
        },
        environment: this.environment,
        startedAt: this.#startedAt,
        endedAt: new Date().toISOString(),
        timer: TIMER,
        timerOverheadNs: timerOverheadNs(),
        metrics: [...parts.metrics],
        counters: { ...parts.counters, ...this.#warmUps },
        predictions: [...(parts.predictions ?? [])],
        notes: [
          ...this.#notes,
          ...(parts.notes ?? []),
          ...warmUpNote(this.#warmUps),
          ...(shared === null ? [] : [shared]),
          ...(stealNote === null ? [] : [stealNote]),
        ],
        ...(deviceShared === null ? {} : { deviceShared }),
        ...(cpuSteal === null ? {} : { cpuSteal }),
        ...this.#declared,
      },
      `${this.experiment.id} results`,
    );
  }
}

export function createContext(experiment: Experiment, options: ContextOptions): LabContext {
  assertExperiment(experiment);
  const { seconds } = options;
  assert(seconds === undefined || seconds > 0, `seconds must be positive: ${seconds}`);
  return new ExperimentContext(experiment, options);
}

/** Runs one experiment in `options.dir`; checks that it returns its own, valid document. */
export async function runExperiment(
  experiment: Experiment,
  options: ContextOptions,
): Promise<Results> {
  const ctx = createContext(experiment, options);
  const results = parseResults(await experiment.run(ctx), `${experiment.id} results`);
  const returned = results.experiment.id;
  assert(returned === experiment.id, `${experiment.id} returned results of ${returned}`);
  return results;
}
