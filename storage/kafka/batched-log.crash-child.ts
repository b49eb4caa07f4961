/**
 * Child process for batched-log.crash.test.ts: four producers append batches to the batched
 * log in argv[2] under the durability policy argv[3] and print each batch once acknowledged,
 * as `baseOffset lastOffset producer sequence`. The parent kills it with SIGKILL.
 */
import { pathToFileURL } from 'node:url';
import type { DurabilityPolicy } from '../io/durability.js';
import { BatchedLog } from './batched-log.js';

/** The value of record `index` of a producer's batch `sequence`: the parent checks it. */
export function crashValue(producer: number, sequence: number, index: number): Buffer {
  return Buffer.from(`p${producer} s${sequence} r${index};`.repeat(1 + ((sequence + index) % 40)));
}

export function crashBatchSize(sequence: number): number {
  return 1 + (sequence % 25);
}

async function produce(log: BatchedLog, producer: number): Promise<never> {
  for (let sequence = 0; ; sequence++) {
    const records = Array.from({ length: crashBatchSize(sequence) }, (_, index) => ({
      value: crashValue(producer, sequence, index),
    }));
    const compression = sequence % 3 === 0 ? 'lz4' : 'none';
    const placed = await log.appendBatch(records, { compression });
    process.stdout.write(`${placed.baseOffset} ${placed.lastOffset} ${producer} ${sequence}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const log = BatchedLog.open(process.argv[2]!, {
    durability: process.argv[3] as DurabilityPolicy,
    segmentBytes: 256 * 1024,
    groupMaxDelayMs: 1,
  });
  process.stdout.write('ready\n');
  await Promise.all([0, 1, 2, 3].map((producer) => produce(log, producer)));
}
