#!/usr/bin/env bash
# Checks that `loglab compare` passes a plain rerun and catches a real change (issue 15):
#   1. runs `loglab run puzzle --quick` twice on this code, into two temp dirs (with --suite:
#      the whole quick suite, `loglab lab`, about 3 minutes a run);
#   2. compares the two runs (directories, matched by experiment id): expects exit 0;
#   3. a copy of the second results file with a counter 50% worse
#      (puzzle.A.always.fsyncsPerMsg × 1.5): expects exit 1;
#   4. a copy with a gated within-run ratio 50% worse
#      (puzzle.always.ratioBA, every sample halved): expects exit 1.
# Prints each step's verdict line and exit code; exits 1 when any step got another exit code.
# It takes a few minutes and measures this machine: run it on a quiet one, never in CI.
set -uo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d "${TMPDIR:-/tmp}/loglab-check-compare-XXXXXX")"
trap 'rm -rf "$work"' EXIT
loglab() { npx tsx lab/main.ts "$@"; }
failed=0

what=(run puzzle --quick)
if [ "${1:-}" = "--suite" ]; then what=(lab); fi
for run in run1 run2; do
  echo "== loglab ${what[*]} --out $work/$run"
  if ! loglab "${what[@]}" --out "$work/$run" > "$work/$run.log" 2>&1; then
    cat "$work/$run.log"
    echo "check-compare: the $run run failed; see above" >&2
    exit 2
  fi
done

# Copies run2's puzzle.json with one metric's median and samples multiplied by a factor.
worsen() {
  local name="$1" factor="$2" out="$3"
  node -e '
    const fs = require("node:fs");
    const [file, name, factor, out] = process.argv.slice(1);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    const metric = doc.metrics.find((m) => m.name === name);
    if (!metric) throw new Error(`no metric ${name} in ${file}`);
    const scale = (value) => value * Number(factor);
    for (const field of ["median", "p50", "p90", "p99", "p999", "max", "mad"]) {
      if (typeof metric[field] === "number") metric[field] = scale(metric[field]);
    }
    if (metric.samples) metric.samples = metric.samples.map(scale);
    if (metric.ci95) metric.ci95 = metric.ci95.map(scale).sort((a, b) => a - b);
    fs.mkdirSync(require("node:path").dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(doc, null, 2));
  ' "$work/run2/puzzle.json" "$name" "$factor" "$out"
}

# Runs one comparison and prints its verdict lines and exit code against the one expected.
check() {
  local title="$1" expected="$2"
  shift 2
  echo "== $title: loglab compare $*"
  loglab compare "$@" > "$work/compare.out" 2> "$work/compare.err"
  local code=$?
  grep -E '^[a-z-]+:.*(failing|no gated)|^suite:' "$work/compare.out"
  sed -n '1,3p' "$work/compare.err"
  if [ "$code" -eq "$expected" ]; then
    echo "-> exit $code (expected $expected): ok"
  else
    echo "-> exit $code (expected $expected): WRONG"
    failed=1
  fi
}

check "a plain rerun" 0 "$work/run1" "$work/run2"
worsen puzzle.A.always.fsyncsPerMsg 1.5 "$work/counter/puzzle.json"
check "a counter 50% worse" 1 "$work/run1/puzzle.json" "$work/counter/puzzle.json"
worsen puzzle.always.ratioBA 0.5 "$work/ratio/puzzle.json"
check "a gated ratio 50% worse" 1 "$work/run1/puzzle.json" "$work/ratio/puzzle.json"

if [ "$failed" -ne 0 ]; then
  echo "check-compare: a comparison did not exit as expected" >&2
  exit 1
fi
echo "check-compare: all comparisons exited as expected"
