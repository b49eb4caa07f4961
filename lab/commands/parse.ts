/** Option parsers shared by commands: each rejects with one line naming what it accepts. */
import { InvalidArgumentError } from 'commander';

/** The longest `--seconds` accepted: a day. */
export const MAX_SECONDS = 86_400;

export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_SECONDS) {
    throw new InvalidArgumentError(`expected a number of seconds in (0, ${MAX_SECONDS}].`);
  }
  return seconds;
}
