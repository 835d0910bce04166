// A vitest reporter that writes the run's unhandled errors to test-results/unhandled-errors-<pid>.json.
// vitest exits 1 on an error thrown outside any test (a rejected promise, an error event after a test
// ended) while its JSON report counts every test passed; scripts/test-summary.mjs reads these files so
// that the one line CI keeps names the error instead of "0 failed" beside a failed run.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export default class UnhandledErrorsReporter {
  onTestRunEnd(_testModules, unhandledErrors) {
    if (unhandledErrors.length === 0) return;
    const errors = unhandledErrors.map((error) => ({
      message: `${error.name ?? "Error"}: ${error.message ?? String(error)}`,
      stack: error.stack,
      // vitest's own fields: the file (and test) that was running when the error was thrown.
      testPath: error.VITEST_TEST_PATH,
      testName: error.VITEST_TEST_NAME,
    }));
    mkdirSync("test-results", { recursive: true });
    writeFileSync(
      join("test-results", `unhandled-errors-${process.pid}.json`),
      JSON.stringify({ unhandledErrors: errors }, null, 2),
    );
  }
}
