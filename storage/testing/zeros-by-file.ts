/**
 * A FileIO that counts the zero bytes written to each file, by path: on the event loop
 * (`zeroBytes`) and on the thread pool (`poolZeroBytes`). Tests of preallocation, segment reuse
 * and spare layout read which file got a segment's zeros.
 */
import type { FileHandle } from '../io/file-io.js';
import { HandleTaggingFileIO } from '../io/handle-tagging-file-io.js';

export class ZerosByFile extends HandleTaggingFileIO<string> {
  readonly zeroBytes = new Map<string, number>();
  readonly poolZeroBytes = new Map<string, number>();

  protected override tag(filePath: string): string {
    return filePath;
  }

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    this.#count(this.zeroBytes, handle, buffer.subarray(bufferStart, bufferStart + length));
    super.write(handle, buffer, bufferStart, length, positionBytes);
  }

  override writeAsync(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): Promise<void> {
    this.#count(this.poolZeroBytes, handle, buffer.subarray(bufferStart, bufferStart + length));
    return super.writeAsync(handle, buffer, bufferStart, length, positionBytes);
  }

  #count(byPath: Map<string, number>, handle: FileHandle, bytes: Uint8Array): void {
    const file = this.tagOf(handle) ?? '';
    if (bytes.every((byte) => byte === 0)) byPath.set(file, (byPath.get(file) ?? 0) + bytes.length);
  }
}
