import type { TestDatabase } from "@axiom-lattice/testing";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { chromiumInstalled, launchChromium, openPage } from "../harness/browser";
import { freshTenant } from "../harness/langgraphSdk";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import { Replica, printLogsOnFailure, startReplicas } from "../harness/replica";
import { createScenarioDatabase } from "../harness/cluster";

// Issue 25: the chat page the gateway serves at /playground, in a real browser (Debian's Chromium,
// driven by playwright-core). The page is the SDK's useStream hook on the gateway's LangGraph API:
// streamed tokens, a tool call, an interrupt answered, a reload in the middle of a run and after it.
// The same journey runs on one gateway in memory and on three replicas on PostgreSQL behind nginx,
// where consecutive requests of the page land on different replicas.

const chromiumMissing = !chromiumInstalled() && process.env.CI !== "true";
if (chromiumMissing) console.warn("SKIPPED: scenario 25 needs Chromium (/usr/bin/chromium), which is not installed; CI installs it");
const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
if (nginxMissing) console.warn("SKIPPED: scenario 25 on replicas needs nginx, which is not installed; CI installs it");

const FINISHED = 30_000;

/** The page's parts, found as a user finds them: by their labels and roles. */
const ui = (page: Page) => ({
  conversation: page.getByRole("list", { name: "Conversation" }),
  answers: page.locator('.messages [data-role="ai"]'),
  questions: page.locator('.messages [data-role="human"]'),
  status: page.locator(".status"),
  interrupt: page.getByRole("region", { name: "Interrupt" }),
});

/** Types `text` as the next message and sends it. */
async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

/** What `locator` shows now: the texts of the elements it matches (none yet: an empty list). It never waits. */
const texts = (locator: Locator) => locator.allTextContents();

/** Waits until `locator` shows what `check` accepts (playwright-core has no web-first assertions; vitest polls). */
const showing = (locator: Locator, check: (shown: string) => boolean) =>
  expect.poll(async () => check((await texts(locator)).join("\n")), { timeout: FINISHED, interval: 100 }).toBe(true);

/** Waits until no run streams and the thread is loaded. */
const settled = (page: Page) => showing(ui(page).status, (shown) => shown === "");

/** Every text the last answer showed, polled from now until it shows what `done` accepts. */
async function lastAnswerUntil(page: Page, done: (shown: string) => boolean): Promise<string[]> {
  const seen: string[] = [];
  await expect
    .poll(
      async () => {
        const shown = (await texts(ui(page).answers.last())).join("");
        if (seen.at(-1) !== shown) seen.push(shown);
        return done(shown);
      },
      { timeout: FINISHED, interval: 20 },
    )
    .toBe(true);
  return seen;
}

function playgroundJourney(target: () => { url: string; name: string }, browser: () => Browser): void {
  it("chats in the browser: streamed answer, tool call, interrupt answered after a reload, a run rejoined after a reload, the conversation kept", async () => {
    const { url, name } = target();
    const page = await openPage(browser(), `25-playground-${name}`);
    const { answers, questions, interrupt, conversation } = ui(page);

    await page.goto(`${url}/playground`);
    await page.getByLabel("Token").fill(await tokenFor(freshTenant(`playground-${name}`)));
    await page.getByRole("button", { name: "Connect" }).click();
    // A tenant without assistants gets the starter one.
    await showing(page.getByLabel("Assistant").locator("option:checked"), (shown) => shown === "Playground");

    // Tokens arrive one by one: the answer is seen growing, word by word, to its end.
    const dripped = "/drip 300 tokens arrive one by one";
    await say(page, dripped);
    const seen = await lastAnswerUntil(page, (shown) => shown === `echo: ${dripped}`);
    expect(seen.filter((text) => text.startsWith("echo:")).length).toBeGreaterThan(2);
    expect(page.url()).toMatch(/[?&]thread=[0-9a-f-]{36}/);
    await settled(page);

    // A tool call, shown with its arguments and its result, then the model's answer.
    await say(page, '/tool echo {"text":"ping"}');
    const toolCall = page.getByLabel("Tool call echo");
    await showing(toolCall, (shown) => shown.includes('echo({"text":"ping"})') && shown.includes("→ ping"));
    await showing(answers.last(), (shown) => shown === "echo returned: ping");
    await settled(page);

    // The assistant asks (ask_human pauses on interrupt()); the question survives a reload, and the answer resumes the run.
    await say(page, "/interrupt which colour?");
    await showing(interrupt, (shown) => shown.includes("which colour?"));
    await page.reload();
    await showing(interrupt, (shown) => shown.includes("which colour?"));
    await showing(toolCall, (shown) => shown.includes("→ ping"));
    await interrupt.getByLabel("Answer").fill("blue");
    await interrupt.getByRole("button", { name: "Answer" }).click();
    await showing(answers.last(), (shown) => shown === "ask_human returned: blue");
    await settled(page);
    expect(await interrupt.count()).toBe(0);

    // A reload in the middle of a run: the page rejoins it (reconnectOnMount) and shows it to its end, once.
    const slow = "/drip 500 still going after the reload";
    await say(page, slow);
    await showing(answers.last(), (shown) => shown.startsWith("echo: /drip"));
    const rejoined = page.waitForRequest((request) => request.method() === "GET" && /\/threads\/[^/]+\/runs\/[^/]+\/stream/.test(request.url()));
    await page.reload();
    await rejoined;
    await showing(answers.last(), (shown) => shown === `echo: ${slow}`);
    await settled(page);

    // The whole conversation, read back from the thread after one more reload.
    await page.reload();
    const conversationShown = [dripped, '/tool echo {"text":"ping"}', "/interrupt which colour?", slow];
    await showing(questions, (shown) => shown === conversationShown.join("\n"));
    expect(await texts(answers)).toEqual([
      `echo: ${dripped}`,
      'echo({"text":"ping"})→ ping',
      "echo returned: ping",
      'ask_human({"question":"which colour?"})→ blue',
      "ask_human returned: blue",
      `echo: ${slow}`,
    ]);
    expect(await conversation.getByLabel("Tool call echo").count()).toBe(1);
    await page.context().close();
  });
}

describe.skipIf(chromiumMissing)("scenario 25: the playground page in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  describe("against one gateway, in memory", () => {
    let gateway: Replica;
    beforeAll(async () => {
      gateway = new Replica({ replicaId: "solo" });
      await gateway.waitReady();
    });
    afterAll(() => gateway?.stop("SIGKILL"));

    playgroundJourney(() => {
      printLogsOnFailure(() => [gateway]);
      return { url: gateway.url, name: "solo" };
    }, () => browser);
  });

  describe.skipIf(nginxMissing)("against three replicas on PostgreSQL, behind nginx", () => {
    let database: TestDatabase;
    let replicas: Replica[] = [];
    let balancer: LoadBalancer;
    beforeAll(async () => {
      database = await createScenarioDatabase("lattice_e2e_playground");
      replicas = await startReplicas(3, { databaseUrl: database.url });
      balancer = await LoadBalancer.start(replicas);
    });
    afterAll(async () => {
      await balancer?.stop();
      await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
      await database?.drop();
    });

    playgroundJourney(() => {
      printLogsOnFailure(() => replicas);
      return { url: balancer.url, name: "replicas" };
    }, () => browser);
  });
});
