/**
 * Laid-out files and the plain synced append over one: the baseline several benches hold the
 * log against. A laid-out file is zero-filled and synced before it is measured (as fio's jobs
 * lay theirs out), so no later sync changes its size and none commits the journal for it.
 */
import * as fs from 'node:fs';
import { MiB } from '../../storage/index.js';

/** Writes zeros over the first `sizeBytes` of `fd`, then fdatasyncs them. */
export function zeroFill(fd: number, sizeBytes: number): void {
  const zeros = Buffer.alloc(MiB);
  for (let at = 0; at < sizeBytes; at += MiB)
    fs.writeSync(fd, zeros, 0, Math.min(MiB, sizeBytes - at), at);
  fs.fdatasyncSync(fd);
}

/** Creates (or empties) `file` and lays out `sizeBytes` of it. */
export function layOutFile(file: string, sizeBytes: number): void {
  const fd = fs.openSync(file, 'w');
  try {
    zeroFill(fd, sizeBytes);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * `writeSync` of one record's bytes, then `fs.fdatasync` on libuv's thread pool, awaited: the
 * least a Node program pays for one append synced off the event loop. Sequential over a file laid
 * out to the whole records that fit in `sizeBytes`, wrapping to its start at the end.
 */
export class SyncedAppendLoop {
  readonly #record: Buffer;
  readonly #fd: number;
  readonly #fileBytes: number;
  #positionBytes = 0;

  constructor(file: string, record: Buffer, sizeBytes: number) {
    this.#record = record;
    this.#fileBytes = Math.floor(sizeBytes / record.length) * record.length;
    layOutFile(file, this.#fileBytes);
    this.#fd = fs.openSync(file, 'r+');
  }

  /** One synced append; resolves to where the next one goes. */
  readonly append = (): Promise<number> => {
    fs.writeSync(this.#fd, this.#record, 0, this.#record.length, this.#positionBytes);
    this.#positionBytes = (this.#positionBytes + this.#record.length) % this.#fileBytes;
    return new Promise((resolve, reject) =>
      fs.fdatasync(this.#fd, (error) =>
        error === null ? resolve(this.#positionBytes) : reject(error),
      ),
    );
  };

  close(): void {
    fs.closeSync(this.#fd);
  }
}
