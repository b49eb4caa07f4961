/**
 * Whose segments these are: a Kafka partition directory (v2 record batches, kafka-batch.ts) or
 * a loglab log (one record at a time, record.ts). Both name their files `<20 digits>.log`,
 * `.index` and `.timeindex`, so the names of the segments cannot tell them apart; what else
 * the directory holds, and failing that the first bytes of a segment, can:
 *
 *   Kafka only     leader-epoch-checkpoint, partition.metadata, <20 digits>.snapshot, .txnindex
 *   loglab only    record-limit, head (written by loglab's log and queue)
 *   first bytes    a Kafka batch: magic 2 at byte 16 and a CRC-32C over bytes 21.. that holds;
 *                  a loglab record: length, CRC, then its id (no magic byte at all)
 *
 * A segment whose first batch is damaged still counts as Kafka's when byte 16 is 2 and bytes
 * 0-7 hold the file name's base offset (a loglab record holds its id at bytes 8-15). A directory
 * with nothing to go by (empty segments) is taken as loglab's, the reading `loglab dump` had
 * before it read Kafka's.
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import {
  LOG_SUFFIX,
  parseSegmentFileName,
  RECORD_LIMIT_FILE,
  HEAD_CHECKPOINT_FILE,
} from '../segments/segment-files.js';
import { walkKafkaSegment } from '../kafka/kafka-segment-walk.js';
import { KAFKA_MAGIC_V2 } from '../kafka/kafka-batch.js';

export type SegmentFormat = 'kafka' | 'loglab';

const KAFKA_FILES: readonly string[] = ['leader-epoch-checkpoint', 'partition.metadata'];
const KAFKA_SUFFIXES: readonly string[] = ['.snapshot', '.txnindex'];
const LOGLAB_FILES: readonly string[] = [RECORD_LIMIT_FILE, HEAD_CHECKPOINT_FILE];
const MAGIC_AT = 16;
const SNIFF_BYTES = 24;

/** The format of the log directory `dir` (or of the segment file `file` inside it). */
export function detectSegmentFormat(
  io: FileIO,
  dir: string,
  file: string | null = null,
): SegmentFormat {
  const names = io.list(dir);
  if (names.some((name) => KAFKA_FILES.includes(name))) return 'kafka';
  if (names.some((name) => KAFKA_SUFFIXES.some((suffix) => name.endsWith(suffix)))) return 'kafka';
  if (names.some((name) => LOGLAB_FILES.includes(name))) return 'loglab';
  const logs = logFilesOf(dir, names);
  const own = file === null ? null : logs.find((log) => log.baseOffset === baseOffsetOf(dir, file));
  for (const log of own === undefined || own === null ? logs : [own, ...logs]) {
    const found = formatOfLogFile(io, log.path, log.baseOffset);
    if (found !== null) return found;
  }
  return 'loglab';
}

function baseOffsetOf(dir: string, file: string): number | null {
  return parseSegmentFileName(dir, path.basename(file))?.baseOffset ?? null;
}

function logFilesOf(dir: string, names: readonly string[]): { path: string; baseOffset: number }[] {
  const logs: { path: string; baseOffset: number }[] = [];
  for (const name of names) {
    const parsed = parseSegmentFileName(dir, name);
    if (parsed?.suffix !== LOG_SUFFIX) continue;
    logs.push({ path: path.join(dir, name), baseOffset: parsed.baseOffset });
  }
  return logs.sort((a, b) => a.baseOffset - b.baseOffset);
}

/** From the first batch or record of one `.log`; null when it is empty. */
function formatOfLogFile(io: FileIO, logPath: string, baseOffset: number): SegmentFormat | null {
  const head = Buffer.alloc(SNIFF_BYTES);
  const handle = io.openReadOnly(logPath);
  let got: number;
  try {
    got = io.read(handle, head, 0, SNIFF_BYTES, 0);
  } finally {
    io.close(handle);
  }
  if (got === 0) return null;
  if (got <= MAGIC_AT || head.readInt8(MAGIC_AT) !== KAFKA_MAGIC_V2) return 'loglab';
  const walk = walkKafkaSegment(io, logPath, { decodeRecords: false });
  try {
    const first = walk.next();
    if (first.done !== true && first.value.crcValid) return 'kafka';
  } finally {
    walk.return({ fileSizeBytes: 0, tail: null });
  }
  return got >= 8 && head.readBigInt64BE(0) === BigInt(baseOffset) ? 'kafka' : 'loglab';
}
