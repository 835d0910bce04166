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

# The streams that exited non-zero, named at the end: a stream can fail without a failed test (a suite
# that did not load, a process that crashed), and the summary line alone would not say where.
failed_streams=()
# The tests in three streams, so that their waits overlap:
#   the gateway's unit tests (the longest package: three vitest workers)
#   beside: the other packages' (one at a time), then the e2e files that create no test database;
#   then the e2e scenarios (three files at a time), then the e2e file that runs alone (e2e/vitest.config.mts says why).
# Every file has its own databases and ports. `turbo run test --only`: everything is built above, and a
# build task replaying its cache could rewrite dist/ under running tests.
e2e() {
  local project="$1"
  (cd e2e && pnpm exec vitest run --project "$project" --reporter=default --reporter=json --outputFile.json="test-results/$project.json" --reporter=../scripts/vitest-unhandled-errors.mjs)
}
echo "==> unit and integration tests, and the e2e files without a database"
pnpm exec turbo run test --only --continue --filter=@axiom-lattice/gateway &
gateway_tests=$!
pnpm exec turbo run test --only --continue --concurrency=1 --filter='!@axiom-lattice/gateway' || failed_streams+=("unit (other packages)")
phase_done "unit (other packages)"
echo "==> e2e: release pipeline and scenario 24 in memory"
e2e release || failed_streams+=("e2e: release")
phase_done "e2e: release (beside gateway)"
wait "$gateway_tests" || failed_streams+=("unit (gateway)")
phase_done "unit (gateway, rest of it)"
echo "==> e2e: scenarios"
e2e scenarios || failed_streams+=("e2e: scenarios")
phase_done "e2e: scenarios"
echo "==> e2e: the file that runs alone (scripts/start.sh)"
e2e alone || failed_streams+=("e2e: alone")
phase_done "e2e: alone"

echo "==> time per phase"
printf '%s\n' "${phases[@]}"
printf '%-28s %5d s\n' "total" "$SECONDS"
status=0
node scripts/test-summary.mjs || status=1
if ((${#failed_streams[@]})); then
  printf 'exited non-zero: %s\n' "${failed_streams[@]}"
  status=1
fi
exit "$status"
