import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { onTestFailed } from "vitest";

/** Debian's Chromium (apt package `chromium`): no browser is downloaded, CI installs it (scripts/test.sh). */
export const CHROMIUM = "/usr/bin/chromium";

export const chromiumInstalled = () => existsSync(CHROMIUM);

/** Where a failed browser test leaves its screenshot (CI keeps test-results). */
const SCREENSHOTS = resolve(__dirname, "../test-results");

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM });

/**
 * A fresh page (its own cookies and storage) for the running test. When the test fails, a screenshot
 * of the page is saved as test-results/<name>.png and the page's console is printed.
 */
export async function openPage(browser: Browser, name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  const page = await context.newPage();
  const logged: string[] = [];
  page.on("console", (message) => logged.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => logged.push(`pageerror: ${error.message}`));
  onTestFailed(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const path = resolve(SCREENSHOTS, `${name}.png`);
    await page.screenshot({ path, fullPage: true }).catch((error: unknown) => logged.push(`no screenshot: ${String(error)}`));
    process.stderr.write(`----- ${name}: screenshot ${path}; the page's console -----\n${logged.join("\n")}\n`);
  });
  return page;
}
