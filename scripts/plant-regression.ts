/**
 * Plants a known regression in a throwaway copy of this tree and asks the gate to find it: the
 * way to measure how often `loglab ci --against` catches what it should. The planted code never
 * enters the shipped tree: a worktree of HEAD gets the patch as a commit of its own, its CLI runs
 * `ci --against <HEAD>` (any further arguments are passed on), and the exit code is passed back
 * (1: the gate caught it).
 *
 *   npx tsx scripts/plant-regression.ts append-10pct [--pairs 10]
 *   npx tsx scripts/plant-regression.ts write-bytes-50pct
 *
 * - append-10pct: every `Log.appendNoWait` spins until it has taken 10% longer than its own work
 *   (so the unbatched append, and the inline-synced one with its fdatasync, slow by about 10%,
 *   plus the cost of the clock reads, which the gate's figures show).
 * - write-bytes-50pct: every write of NodeFileIO writes the first half of its bytes a second time,
 *   to the same place (the files' contents are unchanged, the bytes written per message grow 50%).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Plant {
  readonly file: string;
  readonly anchor: string;
  readonly replacement: string;
}

const PLANTS: Readonly<Record<string, Plant>> = {
  'append-10pct': {
    file: 'storage/log/log.ts',
    anchor: `    const offset = this.#encode(body, attributes, sizeBytes);
    this.#written(sizeBytes);
    return offset;`,
    replacement: `    const plantedStartNs = process.hrtime.bigint();
    const offset = this.#encode(body, attributes, sizeBytes);
    this.#written(sizeBytes);
    const plantedEndNs = plantedStartNs + ((process.hrtime.bigint() - plantedStartNs) * 11n) / 10n;
    while (process.hrtime.bigint() < plantedEndNs);
    return offset;`,
  },
  'write-bytes-50pct': {
    file: 'storage/io/node-file-io.ts',
    anchor: `        throw this.#shortWrite(handle, done, length, positionBytes);
    }
    this.#wrote(length);
  }

  async writeAsync(`,
    replacement: `        throw this.#shortWrite(handle, done, length, positionBytes);
    }
    this.#wrote(length);
    fs.writeSync(handle, buffer, bufferStart, length >> 1, positionBytes);
    this.#wrote(length >> 1);
  }

  async writeAsync(`,
  },
};

function run(command: string, args: readonly string[], cwd: string): number {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  return result.status ?? 1;
}

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

function main(): number {
  const [name, ...passed] = process.argv.slice(2);
  const plant = name === undefined ? undefined : PLANTS[name];
  if (plant === undefined) {
    process.stderr.write(`usage: plant-regression.ts ${Object.keys(PLANTS).join('|')} [ci args]\n`);
    return 2;
  }
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const head = git(root, 'rev-parse', 'HEAD');
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), `loglab-planted-${name}-`));
  git(root, 'worktree', 'add', '--detach', tree, head);
  try {
    const file = path.join(tree, plant.file);
    const source = fs.readFileSync(file, 'utf8');
    if (source.split(plant.anchor).length !== 2) {
      throw new Error(`${plant.file} no longer holds the plant's anchor once: update PLANTS`);
    }
    fs.writeFileSync(file, source.replace(plant.anchor, plant.replacement));
    // The same lockfile as this tree's: its node_modules serve the planted copy too.
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'));
    git(
      tree,
      '-c',
      'user.name=plant',
      '-c',
      'user.email=plant@loglab',
      'commit',
      '-qam',
      `planted: ${name}`,
    );
    process.stderr.write(
      `planted ${name} in ${tree}; the gate runs against ${head.slice(0, 12)}\n`,
    );
    const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const cli = path.join(tree, 'cli', 'main.ts');
    return run(process.execPath, [tsx, cli, 'ci', '--against', head, ...passed], tree);
  } finally {
    git(root, 'worktree', 'remove', '--force', tree);
  }
}

process.exitCode = main();
