/**
 * JSON with every object's keys sorted: one text for one value, whatever order its keys were
 * written in, so labels and parameters can be compared and hashed as text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value));
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, inner]) => inner !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, inner]) => [key, sortedKeys(inner)]);
  return Object.fromEntries(entries);
}
