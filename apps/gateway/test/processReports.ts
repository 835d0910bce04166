import { afterAll, beforeEach } from "vitest";
import { startedProcesses } from "./cliProcess";

// A setup file: after a failed test, how every process its file started (gateways, the README walk's
// shell) ended and the end of what it printed, whether or not the test's own message shows it.
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    for (const started of startedProcesses) console.error(`--- ${started.label} ---\n${started.describe()}`);
  });
});

afterAll(() => startedProcesses.clear());
