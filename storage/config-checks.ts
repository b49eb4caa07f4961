/**
 * Checks of numeric options, shared by the log's and the queues' configurations: a bad value is
 * an INVALID_CONFIG naming the option, what it accepts and what it got.
 */
import { StorageError } from './errors.js';

export function invalidConfig(
  option: string,
  accepted: string,
  got: number | boolean,
): StorageError {
  return new StorageError('INVALID_CONFIG', `${option} must be ${accepted}, got ${got}`, {
    reason: option,
  });
}

export function checkInteger(option: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidConfig(option, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

/** A finite number of ms from `min` to `max`: NaN or Infinity would stop every deadline after it. */
export function checkMs(option: string, value: number, min: number, max: number): number {
  if (!Number.isFinite(value) || value < min || value > max)
    throw invalidConfig(option, `from ${min} to ${max} ms`, value);
  return value;
}
