/**
 * Faults the simulated disk injects, armed programmatically and fired deterministically: "the
 * Nth call of this kind (on this file) from now" misbehaves. Every misbehaving call is recorded,
 * so a crash loop can report how many faults it injected.
 */
import { assert } from '../errors.js';
import type { SimErrno } from './sim-errors.js';

export type FaultCall =
  | 'write'
  | 'read'
  | 'fdatasync'
  | 'open'
  | 'truncate'
  | 'rename'
  | 'unlink'
  | 'fsyncDir';

/**
 * Which files a fault watches: an exact path (normalised like the disk's) or a pattern. Calls on
 * a handle match the path it was opened under, as NodeFileIO names it in its errors.
 */
export type FileMatcher = string | RegExp;

export type SimFault =
  | {
      /** The Nth matching call fails with `errno`, as node:fs would. */
      readonly kind: 'error';
      readonly call: FaultCall;
      readonly nth: number;
      readonly errno: 'EIO' | 'ENOSPC' | 'EMFILE';
      /** Every later call of this kind on the same file (same path for open) fails too. */
      readonly sticky?: boolean;
      readonly file?: FileMatcher;
    }
  | {
      /** The Nth matching write lands only `landedBytes`, then the disk refuses the rest. */
      readonly kind: 'short-write';
      readonly nth: number;
      readonly landedBytes: number;
      /** 'ENOSPC': the retry fails (IO_ERROR); 'no-progress': retries write 0 bytes (SHORT_IO). */
      readonly then: 'ENOSPC' | 'no-progress';
      readonly file?: FileMatcher;
    }
  | {
      /** The Nth matching write succeeds, but its data lands `shiftBytes` away from where asked. */
      readonly kind: 'misdirected-write';
      readonly nth: number;
      readonly shiftBytes: number;
      readonly file?: FileMatcher;
    }
  | {
      /** The Nth FileIO call of any kind, and every call after it, meets a dead machine. */
      readonly kind: 'power-cut';
      readonly nth: number;
    };

export type FaultEffect =
  | { readonly kind: 'error'; readonly errno: SimErrno }
  | {
      readonly kind: 'short-write';
      readonly landedBytes: number;
      readonly then: 'ENOSPC' | 'no-progress';
    }
  | { readonly kind: 'misdirected-write'; readonly shiftBytes: number };

export interface InjectedFault {
  readonly kind: SimFault['kind'] | 'bit-flip';
  /** The call that misbehaved ('any' for a power cut). */
  readonly call: FaultCall | 'any' | 'none';
  readonly file: string;
}

const ERRNOS_BY_CALL: Record<FaultCall, readonly SimErrno[]> = {
  write: ['EIO', 'ENOSPC'],
  read: ['EIO'],
  fdatasync: ['EIO', 'ENOSPC'],
  open: ['EIO', 'ENOSPC', 'EMFILE'],
  truncate: ['EIO'],
  rename: ['EIO', 'ENOSPC'],
  unlink: ['EIO'],
  fsyncDir: ['EIO'],
};

type FileFault = Exclude<SimFault, { kind: 'power-cut' }>;

interface Armed {
  readonly fault: FileFault;
  seen: number;
}

interface Sticky {
  readonly call: FaultCall;
  /** Inode id for data calls, normalised path for open. */
  readonly target: number | string;
  readonly errno: SimErrno;
}

function callOf(fault: FileFault): FaultCall {
  return fault.kind === 'error' ? fault.call : 'write';
}

function matches(matcher: FileMatcher | undefined, filePath: string): boolean {
  if (matcher === undefined) return true;
  return typeof matcher === 'string' ? matcher === filePath : matcher.test(filePath);
}

function checkFault(fault: SimFault): void {
  assert(Number.isSafeInteger(fault.nth) && fault.nth >= 1, `nth must be >= 1: ${fault.nth}`);
  if (fault.kind === 'error') {
    const allowed = ERRNOS_BY_CALL[fault.call];
    assert(allowed.includes(fault.errno), `${fault.call} cannot fail with ${fault.errno}`);
  }
  if (fault.kind === 'short-write') {
    assert(fault.landedBytes >= 0, `landedBytes must be >= 0: ${fault.landedBytes}`);
  }
  if (fault.kind === 'misdirected-write') {
    assert(fault.shiftBytes !== 0, 'a misdirected write must land somewhere else');
  }
  if (fault.kind !== 'power-cut' && fault.file instanceof RegExp) {
    // A global or sticky RegExp keeps lastIndex between tests: matches would depend on history.
    assert(!fault.file.global && !fault.file.sticky, 'file pattern must not use the g or y flag');
  }
}

export class FaultPlan {
  readonly #armed: Armed[] = [];
  readonly #sticky: Sticky[] = [];
  readonly #injected: InjectedFault[] = [];
  #powerCutAfterCalls: number | undefined;
  #powerIsOff = false;

  get injected(): readonly InjectedFault[] {
    return this.#injected;
  }

  arm(fault: SimFault): void {
    checkFault(fault);
    if (fault.kind === 'power-cut') {
      this.#powerCutAfterCalls = Math.min(this.#powerCutAfterCalls ?? fault.nth, fault.nth);
      return;
    }
    this.#armed.push({ fault, seen: 0 });
  }

  /** Counts one FileIO call; true once the power is off (this call and all later ones). */
  powerIsOffAt(operation: string): boolean {
    if (this.#powerIsOff) return true;
    if (this.#powerCutAfterCalls === undefined) return false;
    this.#powerCutAfterCalls--;
    if (this.#powerCutAfterCalls > 0) return false;
    this.#powerIsOff = true;
    this.#injected.push({ kind: 'power-cut', call: 'any', file: operation });
    return true;
  }

  recordBitFlip(filePath: string): void {
    this.#injected.push({ kind: 'bit-flip', call: 'none', file: filePath });
  }

  /** What, if anything, goes wrong with this call; `target` is the inode id or, for open, path. */
  effectFor(call: FaultCall, filePath: string, target: number | string): FaultEffect | undefined {
    const sticky = this.#sticky.find((s) => s.call === call && s.target === target);
    if (sticky !== undefined) {
      this.#injected.push({ kind: 'error', call, file: filePath });
      return { kind: 'error', errno: sticky.errno };
    }
    let firing: Armed | undefined;
    for (const armed of this.#armed) {
      if (callOf(armed.fault) !== call || !matches(armed.fault.file, filePath)) continue;
      armed.seen++;
      if (firing === undefined && armed.seen >= armed.fault.nth) firing = armed;
    }
    if (firing === undefined) return undefined;
    this.#armed.splice(this.#armed.indexOf(firing), 1);
    const fault = firing.fault;
    this.#injected.push({ kind: fault.kind, call, file: filePath });
    if (fault.kind === 'error' && fault.sticky === true) {
      this.#sticky.push({ call, target, errno: fault.errno });
    }
    return fault;
  }
}
