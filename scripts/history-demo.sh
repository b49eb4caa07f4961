#!/usr/bin/env bash
# The results history at work (issue 41), on synthetic runs: ten runs of one experiment with a
# few per cent of noise per round, written by test/fixtures/synthetic-history.ts (seeded; nothing
# is measured), the last three after a commit that made a gated ratio and the raw rate 20% worse.
# As a CI job on one machine would, each run is first checked against the runs before it, then
# added:
#   loglab history check RUN.json --db DB   # exit 0 pass, 1 a gated metric regressed,
#                                           # 2 nothing to judge against (the first run)
#   loglab history add RUN.json --db DB
# Prints each run's verdict, then the ratio across commits; exits 1 unless run 8, and run 8
# alone, failed (run 1 has no history yet). Takes about half a minute (tsx starts 21 times).
#   bash scripts/history-demo.sh [--keep DIR]   # --keep: leave the runs and history in DIR
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = "--keep" ] && [ -n "${2:-}" ]; then
  work="$2"
  mkdir -p "$work"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/loglab-history-demo-XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
tsx="$repo/node_modules/.bin/tsx"
loglab() { "$tsx" "$repo/cli/main.ts" "$@"; }
db="$work/loglab-history.db"
rm -f "$db"
mkdir -p "$work/runs"

"$tsx" "$repo/test/fixtures/synthetic-history.ts" "$work/runs" --step-at 8 > "$work/runs.txt"
echo "10 synthetic runs in $work/runs, a 20% step from run 8 on; history $db"
failed=()
run=0
while read -r file; do
  run=$((run + 1))
  code=0
  loglab history check "$file" --db "$db" > "$work/check.txt" 2> "$work/error.txt" || code=$?
  case "$code" in
    0) verdict="pass: $(grep -E '^synthetic: ' "$work/check.txt")" ;;
    1) verdict="FAIL: $(cat "$work/error.txt")"; failed+=("$run") ;;
    2) verdict="not judged: $(cat "$work/error.txt")" ;;
    *) cat "$work/error.txt" >&2; exit 1 ;;
  esac
  echo "run $run: exit $code, $verdict"
  [ "$run" -ne 8 ] || sed -n '6,11p' "$work/check.txt"
  loglab history add "$file" --db "$db" > /dev/null
done < "$work/runs.txt"

echo
loglab history show --db "$db" --metric synthetic.always.ratioBA
if [ "${failed[*]:-}" != "8" ]; then
  echo "history-demo: expected run 8 alone to fail, got: ${failed[*]:-none}" >&2
  exit 1
fi
echo "history-demo: run 8 failed, every other run passed (run 1: no history yet)"
