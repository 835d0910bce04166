import { afterAll, beforeEach } from "vitest";
import { startedProcesses } from "./cliProcess";

// A setup file: after a failed test, how every gateway process of its file ended and the end of what
// it printed, whether or not the test's own message shows it.
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    for (const gateway of startedProcesses) console.error(`--- the gateway at ${gateway.url} ---\n${gateway.describe()}`);
  });
});

afterAll(() => startedProcesses.clear());
