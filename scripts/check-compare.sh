#!/usr/bin/env bash
# Checks that `loglab compare` passes a plain rerun and catches a real change (issue 15):
#   1. runs `loglab run puzzle --quick` twice on this code, into two temp dirs (with --suite:
#      the whole quick suite, `loglab lab`, about 3 minutes a run);
#   2. compares the two runs (directories, matched by experiment id): expects exit 0;
#   3. for every metric that comparison gated, a copy of the second run's file with that metric
#      alone made 50% worse: expects exit 1 for each;
#   4. for the gated metrics whose measured CV is below 3% on both runs (counters: 0) and whose
#      threshold is below 10% (not measurements), a copy made 10% worse: expects exit 1 for each;
#   5. for a gated counter of each experiment that is 0 (nothing lost, nothing rescanned), a
#      copy where it is 1: expects exit 1 (scripts/check-compare-variants.mjs writes them all).
# Prints each verdict and a tally; exits 1 when any comparison got another exit code.
# It takes minutes and measures this machine: run it on a quiet one, never in CI.
set -uo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d "${TMPDIR:-/tmp}/loglab-check-compare-XXXXXX")"
trap 'rm -rf "$work"' EXIT
loglab() { npx tsx cli/main.ts "$@"; }

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

echo "== a plain rerun: loglab compare $work/run1 $work/run2"
loglab compare "$work/run1" "$work/run2" > "$work/rerun.out" 2> "$work/rerun.err"
rerun=$?
grep -E '^[a-z-]+:.*(failing|no gated)|^suite:' "$work/rerun.out"
sed -n '1,3p' "$work/rerun.err"
failed=0
if [ "$rerun" -eq 0 ]; then echo "-> exit 0 (expected 0): ok"; else
  echo "-> exit $rerun (expected 0): WRONG"; failed=1; fi

loglab compare "$work/run1" "$work/run2" --format json > "$work/rerun.json" 2> /dev/null
node scripts/check-compare-variants.mjs "$work/rerun.json" "$work/run1" "$work/run2" \
  "$work/variants" > "$work/variants.txt" || exit 2

echo "== each gated metric made worse alone: loglab compare RUN1/FILE COPY/FILE, expecting exit 1"
caught=(0 0 0)
total=(0 0 0)
while read -r file dir name worse cv; do
  slot=0
  [ "$worse" = "10%" ] && slot=1
  [ "$worse" = "0→1" ] && slot=2
  loglab compare "$work/run1/$file" "$dir/$file" > /dev/null 2>&1
  code=$?
  total[$slot]=$((total[slot] + 1))
  if [ "$code" -eq 1 ]; then
    caught[$slot]=$((caught[slot] + 1))
    echo "   exit 1  $worse worse  $name (CV $cv)"
  else
    echo "   exit $code  $worse worse  $name (CV $cv): WRONG, expected 1"
    failed=1
  fi
done < "$work/variants.txt"
echo "-> 50% worse: ${caught[0]} of ${total[0]} gated metrics failed the comparison"
echo "-> 10% worse: ${caught[1]} of ${total[1]} gated metrics with CV below 3% failed it"
echo "-> 0 made 1: ${caught[2]} of ${total[2]} gated counters promising 0 failed it"
if [ "${total[0]}" -eq 0 ]; then
  echo "check-compare: the rerun's comparison gated nothing, so nothing was checked" >&2
  failed=1
fi

if [ "$failed" -ne 0 ]; then
  echo "check-compare: a comparison did not exit as expected" >&2
  exit 1
fi
echo "check-compare: all comparisons exited as expected"
