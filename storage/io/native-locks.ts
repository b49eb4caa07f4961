/**
 * The kernel's file locks, through the native addon fs-native-extensions. The addon is loaded on
 * first use, not imported: a static import would load it together with file-io.ts, so on a
 * platform it ships no build for, every command (read-only ones and simulated-disk tests too)
 * would fail at start with the loader's own error. Loaded here, only taking a lock fails, with
 * LOCK_UNAVAILABLE; a writer never runs unlocked because the lock could not be had.
 */
import { createRequire } from 'node:module';
import type * as FsNativeExtensions from 'fs-native-extensions';
import { StorageError } from '../errors.js';

export type NativeLocks = Pick<typeof FsNativeExtensions, 'tryLock' | 'unlock'>;

let loaded: NativeLocks | null = null;

/** The addon, loaded once per process; LOCK_UNAVAILABLE when it cannot load here. */
export function nativeLocks(): NativeLocks {
  loaded ??= loadNativeLocks(createRequire(import.meta.url));
  return loaded;
}

/** Loads the addon through `load` (a require; a test passes one that fails). */
export function loadNativeLocks(load: (id: string) => unknown): NativeLocks {
  try {
    return load('fs-native-extensions') as NativeLocks;
  } catch (cause) {
    const platform = `${process.platform}-${process.arch}`;
    const firstLine = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0];
    throw new StorageError(
      'LOCK_UNAVAILABLE',
      `cannot take file locks on ${platform}: the native addon fs-native-extensions did not ` +
        `load (${firstLine}), and a writer does not run without its lock; reinstall the ` +
        'dependencies on this machine (npm ci), or run on a platform the addon ships a build ' +
        'for (linux, darwin or win32, x64 or arm64)',
      { reason: platform, cause },
    );
  }
}
