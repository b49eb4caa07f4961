/**
 * The course's arithmetic ("Why Position Matters on a Hard Disk", "On an SSD the Gap Shrinks"),
 * computed from a disk model rather than typed in: design A (a file of 1 KiB slots, a send and a
 * delete each a write somewhere in the file) against design B (a log, every write at the end),
 * and the sale of the course's lesson 1 played on the disk. `loglab model` prints these lines.
 */
import { formatBytes, formatNumber } from '../format.js';
import {
  type HddModel,
  type SsdModel,
  halfTurnMs,
  hddQueuedRandomWriteMs,
  hddRandomWriteMs,
  rotationMs,
  ssdRandomWriteMs,
} from './models.js';

export interface CourseScenario {
  readonly messageBytes: number;
  /** Design A writes twice per message: the send fills a slot, the delete frees it. */
  readonly writesPerMessageA: number;
  /**
   * The course's sale (lesson 1): sends per second, the email provider's pace, the backlog after
   * the outage.
   */
  readonly sale: {
    readonly sendsPerSec: number;
    readonly providerPerSec: number;
    readonly backlogMessages: number;
  };
}

export const COURSE_SCENARIO: CourseScenario = {
  messageBytes: 1024,
  writesPerMessageA: 2,
  sale: { sendsPerSec: 40, providerPerSec: 100, backlogMessages: 3600 },
};

export interface SaleFigures {
  readonly peakWritesPerSec: number;
  readonly peakShareOfDisk: number;
  readonly drainWritesPerSec: number;
  readonly deletesAllowedPerSec: number;
  readonly drainRatePerSec: number;
  readonly timeToEmptySeconds: number;
  readonly plannedSeconds: number;
}

export interface HddCourseFigures {
  readonly rotationMs: number;
  readonly halfTurnMs: number;
  readonly randomWriteMs: number;
  readonly randomWritesPerSec: number;
  readonly designAMsgsPerSec: number;
  readonly designBMsgsPerSec: number;
  readonly gap: number;
  readonly queuedDesignAMsgsPerSec: number;
  readonly queuedGap: number;
  readonly sale: SaleFigures;
}

export interface SsdCourseFigures {
  readonly sequentialWriteBytesPerSec: number;
  readonly qd1BytesPerSec: number;
  readonly gap: number;
  readonly qd32BytesPerSec: number;
  readonly designAMsgsPerSecQd1: number;
  readonly bytesPerMessageA: number;
  readonly bytesPerMessageB: number;
  readonly bytesRatio: number;
}

function saleFigures(randomWritesPerSec: number, scenario: CourseScenario): SaleFigures {
  const { sendsPerSec, providerPerSec, backlogMessages } = scenario.sale;
  // Each send is a write and each delete is a write; the disk's writes are shared between them.
  const deletesAllowedPerSec = Math.min(providerPerSec, randomWritesPerSec - sendsPerSec);
  const drainRatePerSec = deletesAllowedPerSec - sendsPerSec;
  return {
    peakWritesPerSec: sendsPerSec + sendsPerSec,
    peakShareOfDisk: (sendsPerSec + sendsPerSec) / randomWritesPerSec,
    drainWritesPerSec: sendsPerSec + providerPerSec,
    deletesAllowedPerSec,
    drainRatePerSec,
    timeToEmptySeconds:
      drainRatePerSec > 0 ? backlogMessages / drainRatePerSec : Number.POSITIVE_INFINITY,
    plannedSeconds: backlogMessages / (providerPerSec - sendsPerSec),
  };
}

export function hddCourseFigures(
  model: HddModel,
  scenario: CourseScenario = COURSE_SCENARIO,
): HddCourseFigures {
  const randomWriteMs = hddRandomWriteMs(model, scenario.messageBytes);
  const randomWritesPerSec = 1000 / randomWriteMs;
  const designAMsgsPerSec = randomWritesPerSec / scenario.writesPerMessageA;
  const designBMsgsPerSec = model.sustainedBytesPerSec / scenario.messageBytes;
  const queuedDesignAMsgsPerSec = 1000 / hddQueuedRandomWriteMs(model) / scenario.writesPerMessageA;
  return {
    rotationMs: rotationMs(model),
    halfTurnMs: halfTurnMs(model),
    randomWriteMs,
    randomWritesPerSec,
    designAMsgsPerSec,
    designBMsgsPerSec,
    gap: designBMsgsPerSec / designAMsgsPerSec,
    queuedDesignAMsgsPerSec,
    queuedGap: designBMsgsPerSec / queuedDesignAMsgsPerSec,
    sale: saleFigures(randomWritesPerSec, scenario),
  };
}

export function ssdCourseFigures(
  model: SsdModel,
  scenario: CourseScenario = COURSE_SCENARIO,
): SsdCourseFigures {
  const qd1BytesPerSec = model.randomWriteIopsQd1 * model.pageBytes;
  // A slot write and a delete each rewrite a whole page; the log writes the message once.
  const bytesPerMessageA = scenario.writesPerMessageA * model.pageBytes;
  return {
    sequentialWriteBytesPerSec: model.sequentialWriteBytesPerSec,
    qd1BytesPerSec,
    gap: model.sequentialWriteBytesPerSec / qd1BytesPerSec,
    qd32BytesPerSec: model.randomWriteIopsQd32 * model.pageBytes,
    designAMsgsPerSecQd1: 1000 / ssdRandomWriteMs(model, 1) / scenario.writesPerMessageA,
    bytesPerMessageA,
    bytesPerMessageB: scenario.messageBytes,
    bytesRatio: bytesPerMessageA / scenario.messageBytes,
  };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const count = (value: number) => formatNumber(value);
const megabytes = (bytesPerSec: number) => `${formatNumber(bytesPerSec / 1e6)} MB/s`;
/** `label = formula = result`, aligned. */
type Step = readonly [label: string, formula: string, result: string];
const render = (steps: readonly Step[]) =>
  steps.map(
    ([label, formula, result]) => `  ${label.padEnd(18)} = ${formula.padEnd(38)} = ${result}`,
  );

function hddDesignSteps(model: HddModel, f: HddCourseFigures, scenario: CourseScenario): Step[] {
  const datasheet =
    model.datasheetAverageLatencyMs === null
      ? ''
      : `   (datasheet: ${model.datasheetAverageLatencyMs} ms)`;
  const writes = scenario.writesPerMessageA;
  const rate = megabytes(model.sustainedBytesPerSec);
  const transfer = `${formatBytes(scenario.messageBytes)} at ${rate}`;
  const seekAndWait = `seek ${model.averageSeekMs.toFixed(2)} + wait ${f.halfTurnMs.toFixed(2)}`;
  const queued = model.queuedRandomWrite;
  return [
    ['one turn', `60 s / ${count(model.rpm)} turns`, ms(f.rotationMs)],
    ['average wait', 'half a turn', `${ms(f.halfTurnMs)}${datasheet}`],
    ['random write', `${seekAndWait} + ${transfer}`, ms(f.randomWriteMs)],
    ['random writes', `1 s / ${ms(f.randomWriteMs)}`, `${count(f.randomWritesPerSec)} a second`],
    [
      'design A',
      `${count(f.randomWritesPerSec)} writes / ${writes} writes per message`,
      `${count(f.designAMsgsPerSec)} messages a second`,
    ],
    [
      'design B',
      `${count(model.sustainedBytesPerSec)} B/s / ${count(scenario.messageBytes)} B`,
      `${count(f.designBMsgsPerSec)} messages a second`,
    ],
    [
      'gap',
      `${count(f.designBMsgsPerSec)} / ${count(f.designAMsgsPerSec)}`,
      `${count(f.gap)} times`,
    ],
    [
      `design A at QD${queued.queueDepth}`,
      `${count(queued.iops)} writes / ${writes}`,
      `${count(f.queuedDesignAMsgsPerSec)} messages a second ` +
        `(B is ${count(f.queuedGap)} times more)`,
    ],
  ];
}

function saleSteps(f: HddCourseFigures, scenario: CourseScenario): Step[] {
  const { sale } = f;
  const { sendsPerSec, providerPerSec, backlogMessages } = scenario.sale;
  const share = Math.round(sale.peakShareOfDisk * 100);
  return [
    [
      'sale peak',
      `${sendsPerSec} sends + ${sendsPerSec} deletes`,
      `${count(sale.peakWritesPerSec)} writes a second (${share}% of the disk)`,
    ],
    [
      'draining',
      `${sendsPerSec} sends + ${providerPerSec} deletes`,
      `${count(sale.drainWritesPerSec)} writes a second ` +
        `(the disk does ${count(f.randomWritesPerSec)})`,
    ],
    [
      'deletes allowed',
      `${count(f.randomWritesPerSec)} - ${sendsPerSec} sends`,
      `${count(sale.deletesAllowedPerSec)} a second`,
    ],
    [
      'drain rate',
      `${count(sale.deletesAllowedPerSec)}/s - ${sendsPerSec}/s new`,
      `${count(sale.drainRatePerSec)} a second`,
    ],
    [
      'time to empty',
      `${count(backlogMessages)} / ${count(sale.drainRatePerSec)}/s`,
      `${count(sale.timeToEmptySeconds)} s, not the ${count(sale.plannedSeconds)} s planned`,
    ],
  ];
}

export function hddCourseLines(
  model: HddModel,
  scenario: CourseScenario = COURSE_SCENARIO,
): string[] {
  const f = hddCourseFigures(model, scenario);
  const { sendsPerSec, providerPerSec, backlogMessages } = scenario.sale;
  return [
    `${model.name}: the course's arithmetic, computed from the model`,
    ...render(hddDesignSteps(model, f, scenario)),
    `The sale: ${sendsPerSec} sends a second, the provider takes ${providerPerSec} a second, ` +
      `${count(backlogMessages)} waiting`,
    ...render(saleSteps(f, scenario)),
  ];
}

export function ssdCourseLines(
  model: SsdModel,
  scenario: CourseScenario = COURSE_SCENARIO,
): string[] {
  const f = ssdCourseFigures(model, scenario);
  const page = count(model.pageBytes);
  const bytesA = formatBytes(f.bytesPerMessageA);
  const bytesB = formatBytes(f.bytesPerMessageB);
  return [
    `${model.name}: the course's arithmetic, computed from the model`,
    ...render([
      ['sequential write', 'datasheet', megabytes(f.sequentialWriteBytesPerSec)],
      [
        'random at QD1',
        `${count(model.randomWriteIopsQd1)} a second x ${page} B`,
        megabytes(f.qd1BytesPerSec),
      ],
      [
        'gap',
        `${megabytes(f.sequentialWriteBytesPerSec)} / ${megabytes(f.qd1BytesPerSec)}`,
        `${count(f.gap)} times`,
      ],
      [
        'random at QD32',
        `${count(model.randomWriteIopsQd32)} a second x ${page} B`,
        megabytes(f.qd32BytesPerSec),
      ],
      [
        'design A at QD1',
        `${count(model.randomWriteIopsQd1)} / ${scenario.writesPerMessageA}`,
        `${count(f.designAMsgsPerSecQd1)} messages a second`,
      ],
      [
        'A, written',
        `${scenario.writesPerMessageA} page writes x ${page} B`,
        `${bytesA} per message`,
      ],
      ['B, written', 'the message appended once', `${bytesB} per message`],
      ['A / B bytes', `${bytesA} / ${bytesB}`, `${count(f.bytesRatio)} times more written by A`],
    ]),
  ];
}
