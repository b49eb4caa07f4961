#!/usr/bin/env bash
# Install everything from the lockfile, type-check, run the test suite (the README's `npm test`),
# then the storage counter gate against ci/baseline.json (exit 1 when a counter got worse).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f scripts/setup-debian.sh ]; then bash scripts/setup-debian.sh; fi
npm ci --no-audit --no-fund
npm run typecheck
npm test
npx tsx lab/main.ts ci
