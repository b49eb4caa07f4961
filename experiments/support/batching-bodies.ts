/**
 * Message bodies for the batching experiment, every one exactly `messageBytes` long:
 *
 * - `json`: application events as producers send them, a JSON object whose field names repeat
 *   from message to message and whose values vary (ids, users, pages, amounts, times drawn from
 *   the seeded source), so a batch compresses as a real topic's does — the names and the shape
 *   repeat, the values do not. A `note` field of words pads the object to the exact size.
 * - `random`: seeded random bytes, which no codec can shrink: what compression costs when it
 *   cannot help.
 *
 * Each kind is a pool of distinct bodies; the experiment cycles through it, so no batch of up
 * to `POOL_BODIES` messages holds one body twice.
 */
import type { SeededRandom } from '../../lab/index.js';
import { assert } from '../../storage/testing/index.js';

export type BodyKind = 'json' | 'random';
export const BODY_KINDS: readonly BodyKind[] = ['json', 'random'];
/** Distinct bodies per kind and size: more than the largest batch. */
export const POOL_BODIES = 1024;

const EVENT_TYPES = ['page_view', 'click', 'add_to_cart', 'purchase', 'signup', 'search'];
const COUNTRIES = ['DE', 'US', 'FR', 'GB', 'IN', 'BR', 'JP', 'NL', 'SE', 'ES', 'PL', 'CA'];
const PAGES = ['/', '/products', '/products/', '/cart', '/checkout', '/search', '/account'];
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ' +
    'Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) ' +
    'Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 ' +
    '(KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
];
const WORDS = [
  'order',
  'shipped',
  'delayed',
  'customer',
  'asked',
  'for',
  'a',
  'refund',
  'gift',
  'wrap',
  'express',
  'priority',
  'warehouse',
  'north',
  'south',
  'returned',
  'item',
  'size',
  'colour',
  'blue',
  'large',
  'coupon',
  'applied',
  'first',
  'visit',
  'mobile',
  'app',
];
/** `,"note":"` and `"}` in place of the object's `}`: what the padding adds beyond its words. */
const NOTE_OVERHEAD_BYTES = 10;
const EPOCH_MS = 1_764_547_200_000;

function hex(random: SeededRandom, digits: number): string {
  let text = '';
  while (text.length < digits) text += random.nextU32().toString(16).padStart(8, '0');
  return text.slice(0, digits);
}

/** The event's fields, most important first; as many are kept as leave room for the note. */
function eventFields(random: SeededRandom, index: number): Array<[string, unknown]> {
  const type = random.pick(EVENT_TYPES);
  const page = random.pick(PAGES);
  const items = Array.from({ length: 1 + random.nextInt(3) }, () => ({
    sku: `SKU-${100_000 + random.nextInt(900_000)}`,
    qty: 1 + random.nextInt(4),
    priceCents: 199 + random.nextInt(20_000),
  }));
  return [
    ['eventId', `${hex(random, 8)}-${hex(random, 4)}-${hex(random, 4)}-${hex(random, 12)}`],
    ['type', type],
    ['ts', EPOCH_MS + index * 37 + random.nextInt(1000)],
    ['userId', `u-${random.nextInt(5_000_000)}`],
    ['country', random.pick(COUNTRIES)],
    ['sessionId', hex(random, 16)],
    ['page', page.endsWith('/') && page.length > 1 ? `${page}${random.nextInt(100_000)}` : page],
    ['referrer', `https://www.example.com/search?q=${random.pick(WORDS)}+${random.pick(WORDS)}`],
    ['amountCents', type === 'purchase' ? random.nextInt(100_000) : 0],
    ['userAgent', random.pick(AGENTS)],
    ['ip', [224, 256, 256, 256].map((range) => random.nextInt(range)).join('.')],
    ['items', items],
    ['experiment', { id: `exp-${random.nextInt(40)}`, variant: random.pick(['A', 'B', 'C']) }],
  ];
}

/** Words to exactly `lengthBytes` characters (the last one cut to fit). */
function note(random: SeededRandom, lengthBytes: number): string {
  let text = '';
  while (text.length < lengthBytes) text += `${text.length === 0 ? '' : ' '}${random.pick(WORDS)}`;
  return text.slice(0, lengthBytes);
}

/** One JSON event of exactly `messageBytes` (ASCII, so characters are bytes). */
export function jsonEvent(random: SeededRandom, index: number, messageBytes: number): Buffer {
  assert(messageBytes >= 128, `a JSON event needs 128 bytes or more: ${messageBytes}`);
  const kept: Record<string, unknown> = {};
  let text = '{}';
  for (const [name, value] of eventFields(random, index)) {
    const candidate = JSON.stringify({ ...kept, [name]: value });
    if (candidate.length + NOTE_OVERHEAD_BYTES > messageBytes) continue;
    kept[name] = value;
    text = candidate;
  }
  // 128 bytes always hold the event id, so `text` ends in a field and takes a comma.
  const padBytes = messageBytes - text.length - NOTE_OVERHEAD_BYTES;
  const body = Buffer.from(`${text.slice(0, -1)},"note":"${note(random, padBytes)}"}`, 'latin1');
  assert(body.length === messageBytes, `a JSON event of ${body.length} bytes, not ${messageBytes}`);
  return body;
}

/** A pool of `POOL_BODIES` distinct bodies of one kind and size. */
export function bodyPool(random: SeededRandom, kind: BodyKind, messageBytes: number): Buffer[] {
  if (kind === 'json') {
    return Array.from({ length: POOL_BODIES }, (_, i) => jsonEvent(random, i, messageBytes));
  }
  const source = Buffer.alloc(POOL_BODIES * messageBytes);
  random.fillBytes(source);
  return Array.from({ length: POOL_BODIES }, (_, i) =>
    source.subarray(i * messageBytes, (i + 1) * messageBytes),
  );
}
