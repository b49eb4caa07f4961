/**
 * One simulated file inode: what the page cache shows, what the device holds, and what is in
 * between.
 *
 *   cache   the bytes and size every read sees (the OS page cache view)
 *   device  the bytes and size on the medium; only writeBack, failWriteBack and flipDeviceBit
 *           change it
 *   dirty   per 512-byte sector touched since the last writeback: the sector's cached content
 *           after each write or truncate that touched it, oldest first. The kernel writes a page
 *           back whole, at any moment, so after a power cut a dirty sector holds its device
 *           content or one of these versions, never a mix of two writes that never coexisted.
 *   lost    sectors whose writeback failed (a failed fdatasync). As in Linux since 4.13 the
 *           pages are marked clean: the cache still shows the new data, the device holds
 *           whatever the failed writeback left (decided at the failure), and a later successful
 *           fdatasync does not write them again unless they are dirtied anew.
 *   sizeHistory  every size the cached file had since the last writeback; after a power cut the
 *           file's size is the device size, one of these, or (as ext4 can commit the size at a
 *           page boundary part-way through an extending write) a page boundary between them.
 *
 * Invariants: a sector that is neither dirty nor lost holds the same bytes in cache and device
 * below both sizes; lost sectors lie inside the cached size; cache bytes past it are zero.
 */
import { assert } from '../errors.js';
import type { SeededRandom } from './prng.js';

export const SECTOR_BYTES = 512;
/** Where ext4 may commit a file's size part-way through an extending write. */
const PAGE_BYTES = 4096;

// Versions kept per dirty sector; older ones are dropped. Any subset of the states a page went
// through is still a state the device could have been written with.
const MAX_VERSIONS_PER_SECTOR = 4;

function sectorOf(positionBytes: number): number {
  return Math.floor(positionBytes / SECTOR_BYTES);
}

function sectorsCovering(sizeBytes: number): number {
  return Math.ceil(sizeBytes / SECTOR_BYTES);
}

function withCapacity(bytes: Uint8Array, neededBytes: number): Uint8Array {
  if (bytes.length >= neededBytes) return bytes;
  const capacityBytes = sectorsCovering(Math.max(neededBytes, bytes.length * 2)) * SECTOR_BYTES;
  const grown = new Uint8Array(capacityBytes);
  grown.set(bytes);
  return grown;
}

/** The device image a power cut would leave, before it is cut to `sizeBytes`. */
interface ResolvedDevice {
  readonly bytes: Uint8Array;
  readonly sizeBytes: number;
}

export class SimFile {
  readonly id: number;
  #cache: Uint8Array;
  #cacheSizeBytes: number;
  #device: Uint8Array;
  #deviceSizeBytes: number;
  readonly #dirty = new Map<number, Uint8Array[]>();
  readonly #lost = new Set<number>();
  #sizeHistory: number[] = [];
  #pendingWriteBytes = 0;

  /** A file whose whole `content` is durable (a new file, or one that survived a crash). */
  constructor(id: number, content: Uint8Array = new Uint8Array(0)) {
    this.id = id;
    this.#cacheSizeBytes = content.length;
    this.#deviceSizeBytes = content.length;
    this.#cache = withCapacity(new Uint8Array(0), content.length);
    this.#cache.set(content);
    this.#device = this.#cache.slice();
  }

  get sizeBytes(): number {
    return this.#cacheSizeBytes;
  }

  /** Bytes passed to write() since the last writeback, successful or failed. */
  get pendingWriteBytes(): number {
    return this.#pendingWriteBytes;
  }

  /** The device's bytes up to the device size: what a crash that lands nothing would keep. */
  durableContent(): Uint8Array {
    return this.#device.slice(0, this.#deviceSizeBytes);
  }

  read(target: Uint8Array, bufferStart: number, length: number, positionBytes: number): number {
    const available = Math.max(0, Math.min(length, this.#cacheSizeBytes - positionBytes));
    target.set(this.#cache.subarray(positionBytes, positionBytes + available), bufferStart);
    return available;
  }

  write(source: Uint8Array, bufferStart: number, length: number, positionBytes: number): void {
    assert(length > 0, `write length must be > 0: ${length}`);
    const endBytes = positionBytes + length;
    this.#cache = withCapacity(this.#cache, endBytes);
    this.#cache.set(source.subarray(bufferStart, bufferStart + length), positionBytes);
    this.#pendingWriteBytes += length;
    for (let sector = sectorOf(positionBytes); sector < sectorsCovering(endBytes); sector++) {
      this.#recordVersion(sector);
    }
    if (endBytes > this.#cacheSizeBytes) this.#resize(endBytes);
  }

  truncate(sizeBytes: number): void {
    const oldSizeBytes = this.#cacheSizeBytes;
    if (sizeBytes === oldSizeBytes) return;
    this.#cache = withCapacity(this.#cache, sizeBytes);
    this.#cache.fill(0, Math.min(sizeBytes, oldSizeBytes), Math.max(sizeBytes, oldSizeBytes));
    this.#resize(sizeBytes);
    // The partial sector at the cut and every changed sector the device holds bytes for become
    // dirty with their new content (zeros past the size): a writeback lands the change, a crash
    // may or may not. Sectors past both the device size and the cut are new: writeback fills them.
    const low = Math.min(sizeBytes, oldSizeBytes);
    const high = Math.max(sizeBytes, oldSizeBytes);
    const end = sectorsCovering(Math.min(high, Math.max(this.#deviceSizeBytes, low)));
    for (let sector = sectorOf(low); sector < end; sector++) this.#recordVersion(sector);
    // Keeps `lost` inside the file, so growing it again reads zeros, never a failed writeback.
    for (const sector of [...this.#lost]) {
      if (sector >= sectorsCovering(sizeBytes)) this.#lost.delete(sector);
    }
  }

  /** A successful fdatasync: dirty sectors and the size reach the device; lost ones do not. */
  writeBack(): void {
    const newSizeBytes = this.#cacheSizeBytes;
    const newSectors = sectorsCovering(newSizeBytes);
    this.#device = withCapacity(this.#device, newSectors * SECTOR_BYTES);
    for (const sector of this.#dirty.keys()) {
      if (sector < newSectors) this.#copySectorToDevice(sector);
      this.#lost.delete(sector);
    }
    // Growth without dirty data (a hole made by truncate) reads as the cache's zeros.
    for (let sector = sectorOf(this.#deviceSizeBytes); sector < newSectors; sector++) {
      if (!this.#lost.has(sector) && !this.#dirty.has(sector)) this.#copySectorToDevice(sector);
    }
    this.#deviceSizeBytes = newSizeBytes;
    this.#forgetPending();
  }

  /**
   * A failed fdatasync: the writeback stopped somewhere, so each dirty sector and the size
   * landed or not exactly as in a power cut, decided now. The pages count as clean afterwards.
   */
  failWriteBack(rng: SeededRandom): void {
    const oldDeviceSizeBytes = this.#deviceSizeBytes;
    const resolved = this.#resolvePending(rng);
    // Only sectors inside the cached file can be lost: a later truncate that grows the file must
    // read zeros there, and is recorded as dirty where the device holds bytes.
    const cachedSectors = sectorsCovering(this.#cacheSizeBytes);
    for (const sector of this.#dirty.keys()) if (sector < cachedSectors) this.#lost.add(sector);
    // Sectors the device size now covers for the first time hold fill, not the cache's bytes.
    const end = Math.min(cachedSectors, sectorsCovering(resolved.sizeBytes));
    for (let sector = sectorOf(oldDeviceSizeBytes); sector < end; sector++) this.#lost.add(sector);
    this.#device = resolved.bytes;
    this.#deviceSizeBytes = resolved.sizeBytes;
    this.#forgetPending();
  }

  /** The file's content after a power cut now; consumes randomness from `rng`. */
  contentAfterCrash(rng: SeededRandom): Uint8Array {
    const resolved = this.#resolvePending(rng);
    return resolved.bytes.slice(0, resolved.sizeBytes);
  }

  /** Bit rot on the medium. A clean cached page shows it too, as if evicted and re-read. */
  flipDeviceBit(positionBytes: number, bitIndex: number): void {
    assert(Number.isInteger(positionBytes) && positionBytes >= 0, `bad position: ${positionBytes}`);
    assert(positionBytes < this.#deviceSizeBytes, `bit flip past durable size: ${positionBytes}`);
    assert(Number.isInteger(bitIndex) && bitIndex >= 0 && bitIndex < 8, `bad bit: ${bitIndex}`);
    const mask = 1 << bitIndex;
    this.#device[positionBytes] = (this.#device[positionBytes] ?? 0) ^ mask;
    const sector = sectorOf(positionBytes);
    if (this.#dirty.has(sector) || this.#lost.has(sector)) return;
    if (positionBytes < this.#cacheSizeBytes) {
      this.#cache[positionBytes] = (this.#cache[positionBytes] ?? 0) ^ mask;
    }
  }

  #resolvePending(rng: SeededRandom): ResolvedDevice {
    const landProbability = rng.nextInt(5) / 4;
    const sizeBytes = this.#sizeAfterCrash(rng);
    const fillWithGarbage = rng.chance(0.5);
    let highestSector = sectorsCovering(Math.max(sizeBytes, this.#deviceSizeBytes));
    for (const sector of this.#dirty.keys()) highestSector = Math.max(highestSector, sector + 1);
    const bytes = withCapacity(this.#device.slice(), highestSector * SECTOR_BYTES);
    // Past the device size the medium holds whatever the blocks held: zeros or stale garbage.
    // Lost sectors keep what their failed writeback left there.
    for (let sector = sectorOf(this.#deviceSizeBytes); sector < highestSector; sector++) {
      if (this.#lost.has(sector)) continue;
      const from = Math.max(this.#deviceSizeBytes, sector * SECTOR_BYTES);
      const region = bytes.subarray(from, (sector + 1) * SECTOR_BYTES);
      if (fillWithGarbage) rng.fillBytes(region);
      else region.fill(0);
    }
    for (const [sector, versions] of this.#dirty) {
      if (!rng.chance(landProbability)) continue;
      const latest = versions[versions.length - 1] as Uint8Array;
      const version = rng.chance(0.5) ? latest : rng.pick(versions);
      bytes.set(version, sector * SECTOR_BYTES);
    }
    return { bytes, sizeBytes };
  }

  /** The device size, a size the file had since, or now and then a page boundary in between. */
  #sizeAfterCrash(rng: SeededRandom): number {
    const sizes = [this.#deviceSizeBytes, ...this.#sizeHistory];
    const picked = rng.pick(sizes);
    if (!rng.chance(0.25)) return picked;
    const lowest = Math.min(...sizes);
    const highest = Math.max(...sizes);
    const firstPage = Math.floor(lowest / PAGE_BYTES) + 1;
    const pages = Math.ceil(highest / PAGE_BYTES) - firstPage;
    return pages > 0 ? (firstPage + rng.nextInt(pages)) * PAGE_BYTES : picked;
  }

  #recordVersion(sector: number): void {
    const start = sector * SECTOR_BYTES;
    this.#cache = withCapacity(this.#cache, start + SECTOR_BYTES);
    const versions = this.#dirty.get(sector) ?? [];
    versions.push(this.#cache.slice(start, start + SECTOR_BYTES));
    if (versions.length > MAX_VERSIONS_PER_SECTOR) versions.shift();
    this.#dirty.set(sector, versions);
  }

  #resize(sizeBytes: number): void {
    this.#cacheSizeBytes = sizeBytes;
    this.#sizeHistory.push(sizeBytes);
  }

  #copySectorToDevice(sector: number): void {
    const start = sector * SECTOR_BYTES;
    this.#device.set(this.#cache.subarray(start, start + SECTOR_BYTES), start);
  }

  #forgetPending(): void {
    this.#dirty.clear();
    this.#sizeHistory = [];
    this.#pendingWriteBytes = 0;
  }
}
