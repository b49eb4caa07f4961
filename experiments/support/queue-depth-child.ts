/**
 * One queue depth of the queue-depth experiment, in a process of its own: libuv reads
 * UV_THREADPOOL_SIZE and UV_USE_IO_URING once, so each depth and engine needs a fresh process.
 *
 *   node --import tsx experiments/support/queue-depth-child.ts '<ChildConfig as JSON>'
 *
 * It measures each method with `depth` operations in flight (the runner's async closed loop),
 * methods interleaved in rounds, samples the device's in-flight writes while each repetition
 * runs, and prints one ChildReport as JSON on standard output. When the config names fio's jobs,
 * each round pairs random-write and append with fio's run of the same job (queue-depth-rounds.ts).
 */
import * as fs from 'node:fs';
import {
  type AsyncOperation,
  type DeviceWriteFile,
  InflightSampler,
  IoPhase,
  Measurement,
  SeededRandom,
  ioUringState,
  measureAsync,
  openDeviceWriteFile,
  warmUpAsync,
} from '../../lab/index.js';
import type { WarmUp } from '../../lab/runner.js';
import { SlotFileQueue } from '../../storage/index.js';
import { bodyBytesFor } from './queue-cycle.js';
import {
  type ChildConfig,
  type ChildReport,
  FIO_METHODS,
  type FioMethod,
  type Method,
} from './queue-depth-protocol.js';
import { FioRuns, fioJobEnv, pairedRounds } from './queue-depth-rounds.js';

/** Messages each slot-send queue holds in flight; deletes pick one of them at random. */
const SLOT_IN_FLIGHT = 8;
const VISIBILITY_TIMEOUT_MS = 3_600_000;

interface MethodRun {
  readonly ioMode: string;
  readonly fallbackReason: string | null;
  readonly op: AsyncOperation;
  /** Called before each measured repetition. */
  beforeRepetition?(): void;
  close(): Promise<void>;
}

/** Positional writes of whole blocks from the file's aligned regions, one region per write. */
function blockWriter(file: DeviceWriteFile, config: ChildConfig, position: () => number) {
  const free = Array.from({ length: config.depth }, (_, region) => region);
  return (): Promise<number> =>
    new Promise((resolve, reject) => {
      const region = free.pop();
      if (region === undefined) return reject(new Error('more writes in flight than regions'));
      fs.write(
        file.fd,
        file.buffer,
        file.regionStart(region),
        config.blockBytes,
        position(),
        (error, written) => {
          free.push(region);
          if (error !== null) return reject(error);
          if (written !== config.blockBytes) return reject(new Error(`short write: ${written}`));
          resolve(written);
        },
      );
    });
}

function randomWrites(config: ChildConfig, random: SeededRandom): MethodRun {
  const file = openDeviceWriteFile(config.randomFile, config.blockBytes, config.depth, 0);
  const blocks = Math.floor(config.randomFileBytes / config.blockBytes);
  const write = blockWriter(file, config, () => random.nextInt(blocks) * config.blockBytes);
  return {
    ioMode: file.mode,
    fallbackReason: file.fallbackReason,
    op: write,
    close: async () => fs.closeSync(file.fd),
  };
}

function appends(config: ChildConfig): MethodRun {
  const file = openDeviceWriteFile(config.appendFile, config.blockBytes, config.depth, 0);
  // The probe wrote the first block; appends continue after it.
  let endBytes = config.blockBytes;
  const write = blockWriter(file, config, () => {
    const position = endBytes;
    endBytes += config.blockBytes;
    return position;
  });
  return {
    ioMode: file.mode,
    fallbackReason: file.fallbackReason,
    op: write,
    // fio's paired runs append to this file too: carry on after what they wrote.
    beforeRepetition: () => {
      const sizeBytes = fs.fstatSync(file.fd).size;
      endBytes = Math.max(endBytes, Math.ceil(sizeBytes / config.blockBytes) * config.blockBytes);
    },
    close: async () => {
      fs.closeSync(file.fd);
      fs.rmSync(config.appendFile, { force: true });
    },
  };
}

interface SlotWorker {
  readonly queue: SlotFileQueue;
  readonly inFlight: number[];
  sendNext: boolean;
}

/**
 * Design A's operations on one slot file per operation in flight, alternately a send and a
 * delete: each is one slot write made durable by its own fdatasync (group commit with no delay
 * and one producer per file), so `depth` fdatasyncs of different files overlap.
 */
function slotSends(config: ChildConfig, random: SeededRandom): MethodRun {
  const body = Buffer.alloc(bodyBytesFor(config.slotBytes));
  random.fillBytes(body);
  const receive = { visibilityTimeoutMs: VISIBILITY_TIMEOUT_MS };
  const idle: SlotWorker[] = config.slotDirs.slice(0, config.depth).map((dir) => {
    const queue = SlotFileQueue.open(dir, {
      slotBytes: config.slotBytes,
      durability: 'group',
      groupMaxDelayMs: 0,
    });
    const inFlight = Array.from({ length: SLOT_IN_FLIGHT }, () => queue.receive(receive)?.id ?? -1);
    return { queue, inFlight: inFlight.filter((id) => id >= 0), sendNext: true };
  });
  const all = [...idle];
  const op = async (): Promise<number> => {
    const worker = idle.pop();
    if (worker === undefined) throw new Error('more operations in flight than slot files');
    const { queue, inFlight } = worker;
    let id: number;
    if (worker.sendNext || inFlight.length === 0) {
      id = await queue.send(body);
    } else {
      const received = queue.receive(receive);
      if (received !== null) inFlight.push(received.id);
      const at = random.nextInt(inFlight.length);
      id = inFlight[at] as number;
      inFlight[at] = inFlight[inFlight.length - 1] as number;
      inFlight.pop();
      await queue.delete(id);
    }
    worker.sendNext = !worker.sendNext;
    idle.push(worker);
    return id;
  };
  return {
    ioMode: 'write+fdatasync',
    fallbackReason: null,
    op,
    close: async () => {
      for (const worker of all) await worker.queue.close();
    },
  };
}

function openMethod(method: Method, config: ChildConfig, random: SeededRandom): MethodRun {
  if (method === 'random-write') return randomWrites(config, random);
  if (method === 'append') return appends(config);
  return slotSends(config, random);
}

interface MethodState {
  readonly run: MethodRun;
  readonly measurement: Measurement;
  readonly reached: number[];
  readonly averageQueue: number[];
  max: number;
}

/** One repetition, with the device's in-flight writes sampled and its queue time counted. */
async function repetition(
  config: ChildConfig,
  state: MethodState,
  sampler: InflightSampler | null,
): Promise<void> {
  state.run.beforeRepetition?.();
  const phase = IoPhase.start({ device: config.device });
  sampler?.start();
  await measureAsync(
    state.measurement,
    state.run.op,
    { seconds: config.seconds },
    { concurrency: config.depth },
  );
  const reached = sampler?.stop() ?? null;
  const { device, elapsedNs } = phase.end();
  if (reached !== null) state.reached.push(reached.mean);
  state.max = Math.max(state.max, reached?.max ?? 0);
  if (device !== null) state.averageQueue.push(device.timeInQueueMs / (elapsedNs / 1e6));
}

function isFioMethod(method: Method): method is FioMethod {
  return (FIO_METHODS as readonly Method[]).includes(method);
}

/** fio's runs for each method it has a job for, on the file and in the mode ours uses. */
function fioRuns(config: ChildConfig, states: Map<Method, MethodState>): Map<Method, FioRuns> {
  const runs = new Map<Method, FioRuns>();
  if (config.fio === null) return runs;
  for (const [method, state] of states) {
    if (!isFioMethod(method)) continue;
    const { ioMode } = state.run;
    runs.set(
      method,
      new FioRuns(
        method,
        ioMode,
        config.fio.jobFiles[method],
        fioJobEnv(method, config, ioMode),
        config.fio.runTimeoutMs,
      ),
    );
  }
  return runs;
}

async function measureMethods(config: ChildConfig): Promise<Pick<ChildReport, 'methods' | 'fio'>> {
  const random = new SeededRandom(config.seed);
  const disks = config.device?.disks ?? [];
  const sampler = disks.length > 0 ? new InflightSampler(disks) : null;
  const states = new Map<Method, MethodState>(
    config.methods.map((method) => [
      method,
      {
        run: openMethod(method, config, random.fork()),
        measurement: new Measurement(method, 'async'),
        reached: [],
        averageQueue: [],
        max: 0,
      },
    ]),
  );
  const fio = fioRuns(config, states);
  const warmUps = new Map<Method, WarmUp>();
  try {
    for (const [method, state] of states) {
      warmUps.set(
        method,
        await warmUpAsync(
          state.measurement,
          state.run.op,
          { seconds: config.warmUpSeconds },
          { concurrency: config.depth },
        ),
      );
    }
    await pairedRounds(
      config.rounds,
      [...states].map(([method, state]) => {
        const reference = fio.get(method);
        return {
          name: method,
          ours: () => repetition(config, state, sampler),
          reference: reference === undefined ? null : (round) => reference.round(round),
        };
      }),
    );
  } finally {
    for (const state of states.values()) await state.run.close();
  }
  return {
    methods: methodReports(states, warmUps, random),
    fio: Object.fromEntries([...fio].map(([method, runs]) => [method, runs.report(random)])),
  };
}

function methodReports(
  states: Map<Method, MethodState>,
  warmUps: Map<Method, WarmUp>,
  random: SeededRandom,
): ChildReport['methods'] {
  const reports: ChildReport['methods'] = {};
  for (const [method, state] of states) {
    const summary = state.measurement.summarize(random);
    reports[method] = {
      ioMode: state.run.ioMode,
      fallbackReason: state.run.fallbackReason,
      ratePerSec: summary.ratePerSec,
      latencyNs: summary.latencyNs,
      reachedDepthPerRepetition: state.reached,
      reachedDepthMax: state.max,
      averageQueuePerRepetition: state.averageQueue,
      warmUp: warmUps.get(method) ?? { ops: 0, elapsedNs: 0 },
    };
  }
  return reports;
}

async function main(): Promise<void> {
  const text = process.argv[2];
  if (text === undefined) throw new Error('queue-depth-child: pass the ChildConfig as JSON');
  const config = JSON.parse(text) as ChildConfig;
  const { methods, fio } = await measureMethods(config);
  const report: ChildReport = {
    methods,
    fio,
    ioUring: ioUringState(),
    threadPoolSize: process.env.UV_THREADPOOL_SIZE ?? null,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
