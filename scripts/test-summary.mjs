// Sums every vitest JSON report of the run into the one line CI reads: "N passed, N failed".
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function* reports(dir) {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (!statSync(path).isDirectory()) continue;
    if (entry === "test-results") {
      for (const file of readdirSync(path)) if (file.endsWith(".json")) yield join(path, file);
    } else {
      yield* reports(path);
    }
  }
}

let passed = 0;
let failed = 0;
let skipped = 0;
let files = 0;
const failures = [];
for (const file of reports(".")) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  // scripts/vitest-unhandled-errors.mjs: an error outside any test fails the run as a test would.
  if (report.unhandledErrors) {
    for (const error of report.unhandledErrors) {
      failed += 1;
      const where = error.testPath ? ` (while ${error.testPath}${error.testName ? ` > ${error.testName}` : ""} ran)` : "";
      failures.push(`unhandled error${where}: ${error.message}`);
    }
    continue;
  }
  files += 1;
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A suite that failed to load has no tests, and one whose hook failed (an afterAll that timed out)
  // has every test passed: neither may pass silently.
  for (const suite of report.testResults ?? []) {
    const assertions = suite.assertionResults ?? [];
    if (suite.status === "failed" && !assertions.some((test) => test.status === "failed")) {
      failed += 1;
      failures.push(`${suite.name}: ${assertions.length === 0 ? "did not load" : "failed outside its tests (a hook)"}${suite.message ? `: ${suite.message}` : ""}`);
    }
    for (const test of assertions) {
      if (test.status === "failed") failures.push(`${suite.name} > ${test.fullName}`);
    }
  }
}
if (files === 0) {
  console.log("0 passed, 1 failed");
  console.error("no test report was written");
  process.exit(1);
}
// The names, because the tail of a CI log is often all that is kept.
for (const failure of failures) console.log(`failed: ${failure}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
