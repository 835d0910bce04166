#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone: installs what is missing, makes sure PostgreSQL is up,
# builds, runs every package's tests and the e2e suite, then prints "N passed, N failed". nginx (for the
# load-balancer scenarios), pgbouncer (for the pooler tests) and chromium (for the browser tests) are
# installed in CI only; elsewhere those tests are skipped without them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
export TURBO_TELEMETRY_DISABLED=1

# Each phase's wall time, printed at the end: what every change pays, phase by phase.
phases=()
phase_started=$SECONDS
phase_done() {
  phases+=("$(printf '%-28s %5d s' "$1" $((SECONDS - phase_started)))")
  phase_started=$SECONDS
}

ensure_pnpm
install_dependencies
phase_done "install"
ensure_postgres
ensure_test_package nginx "the load-balancer scenarios"
ensure_test_package pgbouncer "the pooler tests"
ensure_test_package chromium "the browser tests"
export PATH="$PATH:/usr/sbin"
phase_done "postgres and test packages"
echo "==> DATABASE_URL=$DATABASE_URL"

find . -path ./node_modules -prune -o -type d -name test-results -prune -exec rm -rf {} +

echo "==> building"
pnpm build --output-logs=errors-only
phase_done "build"

status=0
echo "==> unit and integration tests"
# The gateway's suite (the longest, two vitest workers) beside the other packages' (one package at a
# time), rather than all in a row: each file has its own databases and ports. --only: everything is
# built above, and a build task replaying its cache would rewrite dist/ under running tests.
pnpm exec turbo run test --only --continue --filter=@axiom-lattice/gateway &
gateway_tests=$!
pnpm exec turbo run test --only --continue --concurrency=1 --filter='!@axiom-lattice/gateway' || status=1
wait "$gateway_tests" || status=1
phase_done "unit and integration tests"
echo "==> e2e"
pnpm e2e || status=1
phase_done "e2e"

echo "==> time per phase"
printf '%s\n' "${phases[@]}"
printf '%-28s %5d s\n' "total" "$SECONDS"
node scripts/test-summary.mjs || status=1
exit "$status"
