/**
 * The same queue code on both designs: send, receive (a poll), receiveWait (a receive that waits
 * for a delayed message to come due) and delete, on design A (a file of fixed slots) and design
 * B (a log). Run it with `npx tsx examples/queue.ts`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LogQueue, type Queue, type QueueOptions, SlotFileQueue } from 'loglab';

/** Sends four orders (one delayed), handles each once, and says what happened. */
async function work(queue: Queue, print: (line: string) => void): Promise<void> {
  for (const order of [4127, 4128, 4129]) await queue.send(Buffer.from(`order ${order}`));
  await queue.send(Buffer.from('order 4130'), { delayMs: 100 });
  const handled: string[] = [];
  for (let message = queue.receive(); message !== null; message = queue.receive()) {
    handled.push(message.body.toString()); // ... the work; a crash here redelivers it
    await queue.delete(message.id);
  }
  print(`  right away: ${handled.join(', ')}; ${queue.stats().delayed} delayed`);
  const later = await queue.receiveWait({ waitMs: 10_000, visibilityTimeoutMs: 60_000 });
  if (later === null) throw new Error('the delayed order never came due');
  await queue.delete(later.id);
  const { ready, inFlight, delayed } = queue.stats();
  print(
    `  waited for: ${later.body}; ` +
      `left: ${ready} ready, ${inFlight} in flight, ${delayed} delayed`,
  );
}

/** Runs `work` on each design in its own directory under `dir`; each one's write calls. */
export async function queueExample(dir: string, print: (line: string) => void): Promise<number[]> {
  const options: QueueOptions = { durability: 'group' };
  const designs: Array<[string, () => Queue]> = [
    ['design A, slot file', () => SlotFileQueue.open(join(dir, 'slot-queue'), options)],
    ['design B, log', () => LogQueue.open(join(dir, 'log-queue'), options)],
  ];
  const writeCalls: number[] = [];
  for (const [name, open] of designs) {
    const queue = open();
    print(name);
    await work(queue, print);
    writeCalls.push(queue.counters.writeCalls);
    await queue.close();
  }
  return writeCalls;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), 'loglab-example-'));
  const writeCalls = await queueExample(dir, console.log);
  console.log(`write calls: design A ${writeCalls[0]}, design B ${writeCalls[1]}; in ${dir}`);
}
