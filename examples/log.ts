/**
 * A log with group commit: 16 producers append at once, and each append resolves when one
 * fdatasync shared with the others has covered it; then reads by offset and by time.
 * Run it with `npx tsx examples/log.ts`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Log } from 'loglab';

/** Appends 80 records from 16 producers into `dir`, prints what it reads back; the syncs made. */
export async function logExample(dir: string, print: (line: string) => void): Promise<number> {
  let clockMs = Date.UTC(2025, 0, 1, 9, 0); // the log's clock: fixed, so every run prints the same
  // indexIntervalBytes 0: an index entry per record, so a lookup by time is exact.
  const log = Log.open(dir, { durability: 'group', indexIntervalBytes: 0, nowMs: () => clockMs });
  const producer = async (wave: string, id: number, records: number): Promise<void> => {
    for (let i = 0; i < records; i++) await log.append(Buffer.from(`${wave} p${id} #${i}`));
  };
  const wave = (name: string, records: number) =>
    Promise.all(Array.from({ length: 16 }, (_, id) => producer(name, id, records)));
  await wave('09:00', 4);
  clockMs += 60_000;
  await wave('09:01', 1);
  print(`appended ${log.endOffset} records from 16 producers`);
  print(`offset 17: ${log.read(17).body}`);
  const nineOhOne = log.offsetForTime(Date.UTC(2025, 0, 1, 9, 1));
  print(`first record at 09:01: offset ${nineOhOne}, ${log.read(nineOhOne).body}`);
  const reader = log.reader(nineOhOne + 14);
  for (let record = reader.next(); record !== null; record = reader.next()) {
    print(`read on: offset ${record.offset}, ${record.body}`);
  }
  await log.close();
  return log.config.io.counters.fdatasyncCalls;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), 'loglab-example-'));
  const fdatasyncs = await logExample(dir, console.log);
  console.log(`${fdatasyncs} fdatasyncs for 80 appends; the log is in ${dir}`);
}
