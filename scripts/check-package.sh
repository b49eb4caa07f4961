#!/usr/bin/env bash
# The tarball test (issue 17): loglab as a user who only wants the tool gets it.
#   1. `npm pack` (prepack builds dist/ with tsc) into a temp dir; the tarball must hold every
#      file the code reads at run time and no test or TypeScript source;
#   2. `npm i ./loglab-*.tgz` into an empty directory (dependencies from the registry);
#   3. there: `npx loglab --version` and `-V`, `npx loglab list`, `npx loglab ci` (the counter
#      gate against the shipped baseline), a short real run (`run crash-safety queue-depth
#      --quick --seconds 1`, report included; queue-depth's child script and fio jobs are files
#      read at run time too), its results added to a results history and shown (the SQLite
#      addon better-sqlite3, built at install, loads), a plain .mjs program that imports
#      `loglab`, `loglab/lab` and `loglab/experiments`, appends and reads records with Log,
#      round-trips a Kafka batch through every codec and finds the internals closed to it, and
#      a TypeScript program type-checked against the shipped declarations.
# The whole quick suite (`npx loglab lab`, ~3 minutes on a 2-core VM) is left out to keep CI
# short; the two experiments go through the same runner, results and report code.
# Prints the tarball's size and each step's time; exits 1 at the first failure, naming it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/loglab-check-package-XXXXXX")"
trap 'rm -rf "$work"' EXIT
current='setup'
trap 'echo "check-package: FAILED at: $current" >&2' ERR

started=$(date +%s%N)
step() {
  current="$1"
  step_started=$(date +%s%N)
  echo "== $1"
}
done_step() {
  local now
  now=$(date +%s%N)
  printf '   %s: %.1f s\n' "$current" "$(( (now - step_started) / 1000000 ))e-3"
}
fail() {
  echo "check-package: $current: $*" >&2
  exit 1
}

step 'npm pack (prepack builds dist/)'
cd "$repo"
npm pack --pack-destination "$work" --json > "$work/pack.json" 2> "$work/pack.err" \
  || { cat "$work/pack.err" >&2; fail 'npm pack failed'; }
node - "$work/pack.json" "$work/tarball-name.txt" > "$work/files.txt" <<'EOF'
const [info] = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'));
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
console.error(`   ${info.filename}: ${kib(info.size)} packed, ` +
  `${kib(info.unpackedSize)} unpacked, ${info.entryCount} files`);
require('node:fs').writeFileSync(process.argv[3], info.filename);
for (const file of info.files) console.log(file.path);
EOF
tarball="$work/$(cat "$work/tarball-name.txt")"
[ -f "$tarball" ] || fail "no tarball at $tarball"
# Every file read at run time (lab/package-root.ts's packageFile, the queue-depth child) and
# every entry point; a missing one fails here, before anything is installed.
for required in package.json README.md bin/loglab.js ci/baseline.json \
  scripts/fio/append.fio scripts/fio/random-write.fio docs/cli.md docs/storage.md \
  dist/cli/main.js dist/lab/index.js dist/lab/index.d.ts dist/storage/index.js \
  dist/storage/index.d.ts dist/experiments/index.js dist/experiments/index.d.ts \
  dist/experiments/support/queue-depth-child.js; do
  grep -qxF "$required" "$work/files.txt" || fail "the tarball lacks $required"
done
if grep -E '\.test\.|\.ts$|^(test|storage|lab|cli|experiments|reports)/' "$work/files.txt" \
  | grep -vE '^dist/.*\.d\.ts$' > "$work/stray.txt"; then
  fail "the tarball holds tests or sources: $(tr '\n' ' ' < "$work/stray.txt")"
fi
done_step

step 'npm i ./loglab-*.tgz into an empty directory'
app="$work/app"
mkdir "$app"
cd "$app"
# better-sqlite3's install script builds the history's SQLite addon (no prebuilt download here):
# approved in the project, as a user's must be where npm blocks unapproved install scripts.
echo '{ "private": true, "allowScripts": { "better-sqlite3": true } }' > package.json
npm i --no-audit --no-fund "$tarball" > "$work/install.log" 2>&1 \
  || { cat "$work/install.log" >&2; fail 'npm i failed'; }
[ ! -e node_modules/tsx ] || fail 'tsx was installed: it must be a dev dependency only'
done_step

version="$(node -p "require('$repo/package.json').version")"
step 'npx loglab --version, -V'
[ "$(npx --no -- loglab --version)" = "$version" ] || fail "--version is not $version"
[ "$(npx --no -- loglab -V)" = "$version" ] || fail "-V is not $version"
done_step

step 'npx loglab list'
npx --no -- loglab list > "$work/list.txt"
for id in puzzle queue-depth crash-safety; do
  grep -q "^$id " "$work/list.txt" || { cat "$work/list.txt" >&2; fail "list lacks $id"; }
done
done_step

step 'npx loglab ci (the storage counters against the shipped ci/baseline.json)'
npx --no -- loglab ci > "$work/ci.txt" 2>&1 || { cat "$work/ci.txt" >&2; fail 'loglab ci failed'; }
done_step

step 'npx loglab run crash-safety queue-depth --quick --seconds 1'
# queue-depth runs its child as built JavaScript and, when fio is installed, the shipped fio jobs.
mkdir "$work/data"
npx --no -- loglab run crash-safety queue-depth --quick --seconds 1 --allow-memory \
  --dir "$work/data" --out "$work/out" > "$work/run.txt" 2>&1 \
  || { cat "$work/run.txt" >&2; fail 'the run failed'; }
for file in crash-safety.json queue-depth.json report.md report.html; do
  [ -s "$work/out/$file" ] || { cat "$work/run.txt" >&2; fail "the run wrote no $file"; }
done
if command -v fio > /dev/null; then
  grep -q 'jobs in scripts/fio/' "$work/out/queue-depth.json" \
    || fail 'fio is installed but queue-depth ran no fio job'
fi
done_step

step 'npx loglab history add, show and check (the SQLite addon loads)'
# An installed package is no git checkout, so its results record no commit: --commit gives it.
commit=0123456789abcdef0123456789abcdef01234567
npx --no -- loglab history add "$work/out/crash-safety.json" --commit "$commit" \
  --db "$work/history.db" > "$work/history.txt" 2>&1 \
  || { cat "$work/history.txt" >&2; fail 'history add failed'; }
npx --no -- loglab history show --db "$work/history.db" > "$work/history.txt" 2>&1 \
  || { cat "$work/history.txt" >&2; fail 'history show failed'; }
grep -q "^${commit:0:12} " "$work/history.txt" \
  || { cat "$work/history.txt" >&2; fail 'history show lacks the run added'; }
done_step

step 'a plain .mjs program imports loglab'
cat > consumer.mjs <<'EOF'
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KAFKA_COMPRESSIONS, Log, LogQueue, SlotFileQueue, StorageError, decodeBatch, encodeBatch,
  isStorageError,
} from 'loglab';
import { runExperiment, writeResultsFile } from 'loglab/lab';
import { experiments } from 'loglab/experiments';

const dir = mkdtempSync(join(tmpdir(), 'loglab-consumer-'));
try {
  const log = Log.open(join(dir, 'log'), { durability: 'always' });
  const first = await log.append(Buffer.from('hello from a plain .mjs'));
  const second = log.appendNoWait(Buffer.from('{"order":4127}'));
  await log.acknowledged(second);
  assert.equal(log.read(first).body.toString(), 'hello from a plain .mjs');
  await log.close();
  const reopened = Log.open(join(dir, 'log'), { readOnly: true });
  assert.equal(reopened.read(second).body.toString(), '{"order":4127}');
  assert.throws(() => reopened.read(second + 1),
    (error) => error instanceof StorageError && isStorageError(error, 'OFFSET_OUT_OF_RANGE'));
  await reopened.close();
  for (const compression of KAFKA_COMPRESSIONS) {
    const value = Buffer.from(`value ${compression} `.repeat(20));
    const bytes = await encodeBatch({ baseOffset: 7n, baseTimestampMs: 1_700_000_000_000,
      compression, records: [{ timestampDeltaMs: 0, offsetDelta: 0, key: null, value }] });
    const batch = decodeBatch(bytes);
    assert.equal(batch.compression, compression);
    assert.deepEqual(Buffer.from(batch.records[0].value), value);
  }
  assert.equal(typeof LogQueue.open, 'function');
  assert.equal(typeof SlotFileQueue.open, 'function');
  assert.equal(typeof runExperiment, 'function');
  assert.equal(typeof writeResultsFile, 'function');
  assert.ok(experiments.some((experiment) => experiment.id === 'crash-safety'));
  await assert.rejects(import('loglab/dist/storage/sim/sim-disk.js'),
    { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
  const testing = await import('loglab/testing');
  assert.equal(typeof testing.tearTail, 'function');
  console.log(`consumer: appended and read offsets ${first} and ${second}; ` +
    `${KAFKA_COMPRESSIONS.length} codecs round-tripped`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
EOF
node consumer.mjs || fail 'consumer.mjs failed'
done_step

step 'a TypeScript program type-checks against the shipped declarations'
cat > consumer.ts <<'EOF'
import { Log, type LogOptions, type Offset, type Queue, SlotFileQueue, StorageError } from 'loglab';
import { type Experiment, type Results, runExperiment } from 'loglab/lab';
import { experiments } from 'loglab/experiments';

const options: LogOptions = { durability: 'group', groupMaxDelayMs: 1 };
export async function roundTrip(dir: string): Promise<string> {
  const log = Log.open(dir, options);
  const offset: Offset = await log.append(new Uint8Array([1, 2, 3]));
  const queue: Queue = SlotFileQueue.open(`${dir}/slots`, { durability: 'always' });
  await queue.close();
  await log.close();
  return log.read(offset).body.toString('hex');
}
export const first: Experiment | undefined = experiments[0];
export const run: (experiment: Experiment, dir: string) => Promise<Results> =
  (experiment, dir) => runExperiment(experiment, { dir, quick: true });
export const isCorrupt = (error: unknown): boolean =>
  error instanceof StorageError && error.code === 'CORRUPT_RECORD';
EOF
cat > tsconfig.json <<EOF
{
  "compilerOptions": {
    "module": "NodeNext", "moduleResolution": "NodeNext", "target": "ES2022", "strict": true,
    "exactOptionalPropertyTypes": true, "noEmit": true, "skipLibCheck": false,
    "types": ["node"], "typeRoots": ["$repo/node_modules/@types"]
  },
  "files": ["consumer.ts"]
}
EOF
node -e "const p=require('./package.json'); p.type='module'; \
  require('fs').writeFileSync('package.json', JSON.stringify(p, null, 2))"
"$repo/node_modules/.bin/tsc" -p tsconfig.json > "$work/tsc.txt" 2>&1 \
  || { cat "$work/tsc.txt" >&2; fail 'the declarations do not type-check a consumer'; }
done_step

elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
printf 'check-package: passed in %.1f s\n' "${elapsed_ms}e-3"
