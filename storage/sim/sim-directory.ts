/**
 * One simulated directory inode: its entries as the cache shows them, its entries as the device
 * holds them, and the operations between the two. An operation names inodes, not paths, so
 * replaying any subset of them in issue order gives a consistent namespace: a rename moves one
 * inode from one name to another in one step, whichever directory it is committed through.
 */
export type DirOpKind = 'create' | 'mkdir' | 'rename' | 'unlink';

export type DirOp =
  | {
      readonly kind: 'create' | 'mkdir' | 'unlink';
      readonly seq: number;
      readonly dirId: number;
      readonly name: string;
      readonly inodeId: number;
      readonly path: string;
    }
  | {
      readonly kind: 'rename';
      readonly seq: number;
      readonly fromDirId: number;
      readonly fromName: string;
      readonly toDirId: number;
      readonly toName: string;
      readonly inodeId: number;
      readonly path: string;
      readonly toPath: string;
    };

/** Directories an operation changes: a rename across directories is pending in both. */
export function dirsOf(op: DirOp): number[] {
  if (op.kind !== 'rename') return [op.dirId];
  return op.fromDirId === op.toDirId ? [op.fromDirId] : [op.fromDirId, op.toDirId];
}

export class SimDirectory {
  readonly id: number;
  /** name → inode id, as reads (list, open, exists) see it. */
  readonly entries: Map<string, number>;
  /** name → inode id, as it would come back after a power cut that lands nothing pending. */
  readonly durableEntries: Map<string, number>;
  pending: DirOp[] = [];

  /** A directory whose `entries` are all durable. */
  constructor(id: number, entries: ReadonlyMap<string, number> = new Map()) {
    this.id = id;
    this.entries = new Map(entries);
    this.durableEntries = new Map(entries);
  }
}

function removeIfLinked(entries: Map<string, number>, name: string, inodeId: number): void {
  if (entries.get(name) === inodeId) entries.delete(name);
}

/** Replays `op` onto durable entries; `entriesOf` returns the map to change for a directory. */
export function applyDirOp(op: DirOp, entriesOf: (dirId: number) => Map<string, number>): void {
  switch (op.kind) {
    case 'create':
    case 'mkdir':
      entriesOf(op.dirId).set(op.name, op.inodeId);
      return;
    case 'unlink':
      removeIfLinked(entriesOf(op.dirId), op.name, op.inodeId);
      return;
    case 'rename':
      removeIfLinked(entriesOf(op.fromDirId), op.fromName, op.inodeId);
      entriesOf(op.toDirId).set(op.toName, op.inodeId);
      return;
  }
}
