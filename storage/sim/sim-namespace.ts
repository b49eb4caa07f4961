/**
 * The simulated directory tree: inodes by id, paths walked from the root through the cache's
 * entries, directory operations recorded as pending in the directories they change, committed
 * by fsyncDir, and resolved at a power cut. Paths are POSIX and absolute once normalised
 * (`posix.resolve('/', path)`), so a relative path names the same file on every run.
 *
 * Errors are thrown as node:fs-like errno exceptions; the disk wraps them like NodeFileIO does.
 */
import { posix } from 'node:path';
import { assert } from '../errors.js';
import type { SeededRandom } from './prng.js';
import { applyDirOp, dirsOf, SimDirectory, type DirOp, type DirOpKind } from './sim-directory.js';
import { errnoException, isErrnoException } from './sim-errors.js';
import { SimFile } from './sim-file.js';

export type SimInode = SimFile | SimDirectory;

export interface PendingDirOp {
  readonly kind: DirOpKind;
  readonly path: string;
  /** Set for a rename: the new path. */
  readonly toPath?: string;
}

const ROOT_ID = 1;

export function normalizePath(filePath: string): string {
  assert(filePath.length > 0, 'path must not be empty');
  return posix.resolve('/', filePath);
}

function componentsOf(normalizedPath: string): string[] {
  return normalizedPath.split('/').filter((part) => part.length > 0);
}

export class SimNamespace {
  readonly #inodes: Map<number, SimInode>;
  #nextInodeId: number;
  #nextSeq = 1;

  /** An empty tree holding only a durable root, or the given inodes after a crash. */
  constructor(inodes?: Map<number, SimInode>, nextInodeId = ROOT_ID + 1) {
    this.#inodes = inodes ?? new Map([[ROOT_ID, new SimDirectory(ROOT_ID)]]);
    assert(this.#inodes.get(ROOT_ID) instanceof SimDirectory, 'the tree must have a root');
    this.#nextInodeId = nextInodeId;
  }

  /** The inode at `filePath` as the cache sees it; undefined when only the last part is missing. */
  find(filePath: string, syscall: string): SimInode | undefined {
    return this.#walk(filePath, syscall, 'entries');
  }

  /** The inode at `filePath` through durable entries only; undefined if any part is missing. */
  findDurable(filePath: string): SimInode | undefined {
    try {
      return this.#walk(filePath, 'stat', 'durableEntries');
    } catch (cause) {
      if (isErrnoException(cause)) return undefined;
      throw cause;
    }
  }

  openFile(filePath: string, create: boolean): SimFile {
    const existing = this.find(filePath, 'open');
    if (existing instanceof SimDirectory) throw errnoException('EISDIR', 'open', filePath);
    if (existing !== undefined) return existing;
    if (!create) throw errnoException('ENOENT', 'open', filePath);
    const { dir, name, path } = this.#parent(filePath, 'open');
    const file = new SimFile(this.#nextInodeId++);
    this.#inodes.set(file.id, file);
    this.#link('create', dir, name, file.id, path);
    return file;
  }

  mkdirp(dirPath: string): void {
    let current = this.#root();
    let currentPath = '';
    for (const name of componentsOf(normalizePath(dirPath))) {
      currentPath = `${currentPath}/${name}`;
      const id = current.entries.get(name);
      const next = id === undefined ? undefined : this.#inodes.get(id);
      if (next instanceof SimFile) {
        const last = currentPath === normalizePath(dirPath);
        throw errnoException(last ? 'EEXIST' : 'ENOTDIR', 'mkdir', dirPath);
      }
      if (next !== undefined) {
        current = next;
        continue;
      }
      const made = new SimDirectory(this.#nextInodeId++);
      this.#inodes.set(made.id, made);
      this.#link('mkdir', current, name, made.id, currentPath);
      current = made;
    }
  }

  rename(fromPath: string, toPath: string): void {
    const source = this.find(fromPath, 'rename');
    if (source === undefined) throw errnoException('ENOENT', 'rename', fromPath);
    const from = this.#parent(fromPath, 'rename');
    const to = this.#parent(toPath, 'rename');
    if (from.path === to.path) return;
    if (to.path.startsWith(`${from.path}/`)) throw errnoException('EINVAL', 'rename', fromPath);
    this.#checkRenameTarget(source, to.dir.entries.get(to.name), toPath);
    from.dir.entries.delete(from.name);
    to.dir.entries.set(to.name, source.id);
    this.#record({
      kind: 'rename',
      seq: this.#nextSeq++,
      fromDirId: from.dir.id,
      fromName: from.name,
      toDirId: to.dir.id,
      toName: to.name,
      inodeId: source.id,
      path: from.path,
      toPath: to.path,
    });
  }

  unlink(filePath: string): void {
    const target = this.find(filePath, 'unlink');
    if (target === undefined) throw errnoException('ENOENT', 'unlink', filePath);
    if (target instanceof SimDirectory) throw errnoException('EISDIR', 'unlink', filePath);
    const { dir, name, path } = this.#parent(filePath, 'unlink');
    dir.entries.delete(name);
    const inodeId = target.id;
    this.#record({ kind: 'unlink', seq: this.#nextSeq++, dirId: dir.id, name, inodeId, path });
  }

  list(dirPath: string): string[] {
    const dir = this.find(dirPath, 'scandir');
    if (dir === undefined) throw errnoException('ENOENT', 'scandir', dirPath);
    if (dir instanceof SimFile) throw errnoException('ENOTDIR', 'scandir', dirPath);
    return [...dir.entries.keys()].sort();
  }

  /** fsyncDir: the directory's pending operations, and those they depend on, become durable. */
  commit(dirPath: string): void {
    const dir = this.find(dirPath, 'fsync');
    if (dir === undefined) throw errnoException('ENOENT', 'fsync', dirPath);
    if (dir instanceof SimFile) throw errnoException('ENOTDIR', 'fsync', dirPath);
    const chosen = new Map<number, DirOp>();
    this.#collectForCommit(dir, Number.POSITIVE_INFINITY, chosen);
    const ops = [...chosen.values()].sort((a, b) => a.seq - b.seq);
    for (const op of ops) applyDirOp(op, (id) => this.#dir(id).durableEntries);
    for (const id of new Set(ops.flatMap(dirsOf))) {
      const touched = this.#dir(id);
      touched.pending = touched.pending.filter((op) => !chosen.has(op.seq));
    }
  }

  /** sync(2) for directories: every pending operation becomes durable. */
  commitAll(): void {
    for (const op of this.#allPending()) applyDirOp(op, (id) => this.#dir(id).durableEntries);
    for (const inode of this.#inodes.values()) {
      if (inode instanceof SimDirectory) inode.pending = [];
    }
  }

  /** The names reads see for inode `id` in every directory: its hard links. */
  linksTo(id: number): number {
    let links = 0;
    for (const inode of this.#inodes.values()) {
      if (!(inode instanceof SimDirectory)) continue;
      for (const target of inode.entries.values()) if (target === id) links++;
    }
    return links;
  }

  /** Every file inode, linked or not (an unlinked file stays alive while a handle holds it). */
  files(): SimFile[] {
    return [...this.#inodes.values()].filter((inode): inode is SimFile => inode instanceof SimFile);
  }

  pendingOps(): PendingDirOp[] {
    return this.#allPending().map((op) =>
      op.kind === 'rename'
        ? { kind: op.kind, path: op.path, toPath: op.toPath }
        : { kind: op.kind, path: op.path },
    );
  }

  /**
   * The tree a power cut leaves: each pending directory operation survives or not (one coin per
   * operation, replayed in issue order), then every file reachable through the surviving entries
   * is resolved by its own crash rules. Unreachable inodes are gone.
   */
  afterCrash(rng: SeededRandom): SimNamespace {
    const landProbability = rng.nextInt(5) / 4;
    const survived = new Map<number, Map<string, number>>();
    const entriesOf = (id: number): Map<string, number> => {
      const existing = survived.get(id);
      if (existing !== undefined) return existing;
      const copy = new Map(this.#dir(id).durableEntries);
      survived.set(id, copy);
      return copy;
    };
    for (const op of this.#allPending()) if (rng.chance(landProbability)) applyDirOp(op, entriesOf);
    const inodes = new Map<number, SimInode>();
    const visit = (id: number): void => {
      const inode = this.#inodes.get(id);
      if (inodes.has(id) || inode === undefined) return;
      if (inode instanceof SimFile) {
        inodes.set(id, new SimFile(id, inode.contentAfterCrash(rng)));
        return;
      }
      const entries = survived.get(id) ?? inode.durableEntries;
      inodes.set(id, new SimDirectory(id, entries));
      for (const name of [...entries.keys()].sort()) visit(entries.get(name) as number);
    };
    visit(ROOT_ID);
    return new SimNamespace(inodes, this.#nextInodeId);
  }

  #walk(
    filePath: string,
    syscall: string,
    view: 'entries' | 'durableEntries',
  ): SimInode | undefined {
    const names = componentsOf(normalizePath(filePath));
    let current: SimInode = this.#root();
    for (const [index, name] of names.entries()) {
      if (current instanceof SimFile) throw errnoException('ENOTDIR', syscall, filePath);
      const id: number | undefined = current[view].get(name);
      const next: SimInode | undefined = id === undefined ? undefined : this.#inodes.get(id);
      if (next === undefined) {
        if (index === names.length - 1) return undefined;
        throw errnoException('ENOENT', syscall, filePath);
      }
      current = next;
    }
    return current;
  }

  #parent(filePath: string, syscall: string): { dir: SimDirectory; name: string; path: string } {
    const path = normalizePath(filePath);
    if (path === '/') throw errnoException('EISDIR', syscall, filePath);
    const dir = this.find(posix.dirname(path), syscall);
    if (dir === undefined) throw errnoException('ENOENT', syscall, filePath);
    if (dir instanceof SimFile) throw errnoException('ENOTDIR', syscall, filePath);
    return { dir, name: posix.basename(path), path };
  }

  #checkRenameTarget(source: SimInode, targetId: number | undefined, toPath: string): void {
    if (targetId === undefined) return;
    const target = this.#inodes.get(targetId);
    if (source instanceof SimFile && target instanceof SimDirectory) {
      throw errnoException('EISDIR', 'rename', toPath);
    }
    if (source instanceof SimDirectory && target instanceof SimFile) {
      throw errnoException('ENOTDIR', 'rename', toPath);
    }
    if (target instanceof SimDirectory && target.entries.size > 0) {
      throw errnoException('ENOTEMPTY', 'rename', toPath);
    }
  }

  #link(
    kind: 'create' | 'mkdir',
    dir: SimDirectory,
    name: string,
    inodeId: number,
    path: string,
  ): void {
    dir.entries.set(name, inodeId);
    this.#record({ kind, seq: this.#nextSeq++, dirId: dir.id, name, inodeId, path });
  }

  #record(op: DirOp): void {
    for (const id of dirsOf(op)) this.#dir(id).pending.push(op);
  }

  #collectForCommit(dir: SimDirectory, upToSeq: number, chosen: Map<number, DirOp>): void {
    for (const op of dir.pending) {
      if (op.seq > upToSeq || chosen.has(op.seq)) continue;
      chosen.set(op.seq, op);
      // A cross-directory rename is one step: committing it commits what the other directory
      // did before it, or a name could come back that the rename had already moved away.
      for (const id of dirsOf(op)) {
        if (id !== dir.id) this.#collectForCommit(this.#dir(id), op.seq, chosen);
      }
    }
  }

  #allPending(): DirOp[] {
    const bySeq = new Map<number, DirOp>();
    for (const inode of this.#inodes.values()) {
      if (inode instanceof SimDirectory) for (const op of inode.pending) bySeq.set(op.seq, op);
    }
    return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  }

  #root(): SimDirectory {
    return this.#dir(ROOT_ID);
  }

  #dir(id: number): SimDirectory {
    const inode = this.#inodes.get(id);
    assert(inode instanceof SimDirectory, `inode ${id} is not a directory`);
    return inode;
  }
}
