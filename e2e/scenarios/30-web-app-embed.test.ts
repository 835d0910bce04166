import { createServer, type Server } from "node:http";
import { createHmac } from "node:crypto";
import { type TestDatabase, freePort } from "@axiom-lattice/testing";
import type { Browser, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenFor } from "../harness/auth";
import { chromiumInstalled, launchChromium, openPage } from "../harness/browser";
import { LoadBalancer, findNginx } from "../harness/loadBalancer";
import { Replica, printLogsOnFailure, startReplicas } from "../harness/replica";
import { createScenarioDatabase } from "../harness/cluster";

// Issue 38: an agent web app embedded in a host page on another origin, in a real browser (Debian's
// Chromium). The host's backend signs each user's token; the page learns it, a welcome and quick
// prompts through postMessage; answers stream; a reload keeps the thread; another user sees none of
// it; a page on an origin the web app does not allow cannot frame the chat. On one gateway in memory,
// and on three replicas on PostgreSQL behind nginx round-robin, where the replica running an answer
// is killed mid-stream and the page shows the answer to its end, once, and where disabling the web
// app through one replica ends an end user's stream on another. On one gateway, an anonymous web app
// names its visitors itself, and an operator previews a draft in the real page with a preview token.

const chromiumMissing = !chromiumInstalled() && process.env.CI !== "true";
if (chromiumMissing) console.warn("SKIPPED: scenario 30 needs Chromium (/usr/bin/chromium), which is not installed; CI installs it");

const nginxMissing = findNginx() === undefined && process.env.CI !== "true";
if (nginxMissing) console.warn("SKIPPED: scenario 30 on replicas needs nginx, which is not installed; CI installs it");

const FINISHED = 30_000;
/** Short enough that a peer takes a killed replica's run over within seconds. */
const RUN_LEASE_MS = "3000";

/** A host site: its page embeds the chat with embed.js, its backend signs the user's token. */
class HostSite {
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(render: (query: URLSearchParams) => Promise<string>): Promise<HostSite> {
    const port = await freePort();
    const server = createServer((request, response) => {
      void render(new URL(request.url ?? "/", "http://host").searchParams).then((html) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html));
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return new HostSite(server, `http://127.0.0.1:${port}`);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** What a host's backend does: an HS256 token, iss = the web app, sub = the user, an hour. */
function signUserToken(secret: string, webAppId: string, user: string): string {
  const part = (json: object) => Buffer.from(JSON.stringify(json)).toString("base64url");
  const signed = `${part({ alg: "HS256", typ: "JWT" })}.${part({ iss: webAppId, sub: user, exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  return `${signed}.${createHmac("sha256", secret).update(signed).digest("base64url")}`;
}

/** A host page mounting the chat with `identity`: a signed user's `token`, an operator's `previewToken`, or nothing (anonymous). */
const hostPage = (gateway: string, webAppId: string, identity: { token?: string; previewToken?: string }) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>Shop</h1><div id="chat" style="height: 600px"></div>
<script src="${gateway}/embed.js"></script>
<script>
  window.embed = AxiomEmbed.mount(document.getElementById("chat"), {
    ...${JSON.stringify({ gateway, webAppId, ...identity })},
    welcome: "Welcome to the shop!",
    quicks: [{ label: "Hours", text: "When are you open?" }, { label: "Returns", text: "How do returns work?" }],
  });
</script></body></html>`;

const chat = (page: Page): FrameLocator => page.frameLocator("iframe");
const shownIn = async (page: Page, selector: string) => (await chat(page).locator(selector).allTextContents()).join("\n");
/** Waits until what `selector` shows passes `check`; a failure prints what it showed last. */
const showing = (page: Page, selector: string, check: (shown: string) => boolean) =>
  expect.poll(() => shownIn(page, selector), { timeout: FINISHED, interval: 100 }).toSatisfy(check);

/** The web app, its host site and a site on an origin the web app does not allow, on the gateway at `url`. */
interface Setting {
  gateway: string;
  operator: Record<string, string>;
  host: HostSite;
  stranger: HostSite;
}

async function publishWebApp(gateway: string, tenant: string): Promise<Setting> {
  const operator = { authorization: `Bearer ${await tokenFor(tenant)}`, "content-type": "application/json" };
  const api = async (path: string, body: unknown) => {
    const response = await fetch(`${gateway}${path}`, { method: "POST", headers: operator, body: JSON.stringify(body) });
    expect(response.status, path).toBeLessThan(300);
    return (await response.json()) as Record<string, string>;
  };
  await api("/api/assistants", { id: "shop-helper", name: "Shop helper" });
  let webAppId = "";
  let secret = "";
  let anonymousId = "";
  let draftId = "";
  // ?app=anonymous: the anonymous web app; ?app=draft: the draft (&preview: with a preview token); else the signed one, as ?user=.
  const render = async (query: URLSearchParams) => {
    if (query.get("app") === "anonymous") return hostPage(gateway, anonymousId, {});
    if (query.get("app") !== "draft") return hostPage(gateway, webAppId, { token: signUserToken(secret, webAppId, query.get("user") ?? "ada") });
    const previewToken = query.has("preview") ? (await api(`/api/web-apps/${draftId}/preview-token`, { user_id: "operator" })).token : undefined;
    return hostPage(gateway, draftId, { previewToken });
  };
  const [host, stranger] = await Promise.all([HostSite.start(render), HostSite.start(render)]);
  const allowed_origins = [host.origin];
  webAppId = (await api("/api/web-apps", { assistant_id: "shop-helper", name: "Shop help", status: "published", allowed_origins })).id;
  secret = (await api(`/api/web-apps/${webAppId}/secret`, {})).secret;
  anonymousId = (await api("/api/web-apps", { assistant_id: "shop-helper", name: "Shop help", status: "published", allowed_origins, identity: { mode: "anonymous" } })).id;
  draftId = (await api("/api/web-apps", { assistant_id: "shop-helper", name: "Shop help (draft)", status: "draft", allowed_origins })).id;
  return { gateway, operator, host, stranger };
}

function embedJourney(name: string, setting: () => Setting, browser: () => Browser, replicas: () => Replica[]): void {
  it("chats: a quick prompt's answer streams, axiom:send sends, a reload keeps the thread", async () => {
    printLogsOnFailure(replicas);
    const page = await openPage(browser(), `30-web-app-embed-${name}-ada`);
    await page.goto(`${setting().host.origin}/?user=ada`);
    await showing(page, "#messages li", (shown) => shown === "Welcome to the shop!");
    await chat(page).getByRole("button", { name: "Hours" }).click();
    await showing(page, "#messages li.assistant", (shown) => shown === "echo: When are you open?");
    await page.evaluate(() => (globalThis as unknown as { embed: { send(text: string): void } }).embed.send("sent by the host"));
    await showing(page, "#messages li.assistant", (shown) => shown.endsWith("echo: sent by the host"));
    await page.reload();
    await showing(page, "#messages li.user", (shown) => shown === "When are you open?\nsent by the host");
    await page.context().close();
  });

  it("asks the user what the assistant asks, and streams the run that goes on with the answer, after a reload too", async () => {
    printLogsOnFailure(replicas);
    const page = await openPage(browser(), `30-web-app-embed-${name}-dora`);
    await page.goto(`${setting().host.origin}/?user=dora`);
    await showing(page, "#messages li", (shown) => shown === "Welcome to the shop!");
    await page.evaluate(() => (globalThis as unknown as { embed: { send(text: string): void } }).embed.send("/interrupt which colour?"));
    await showing(page, "#question", (shown) => shown === "which colour?");
    await page.reload();
    await showing(page, "#question", (shown) => shown === "which colour?");
    await chat(page).getByLabel("Answer", { exact: true }).fill("blue");
    await chat(page).getByRole("button", { name: "Answer" }).click();
    await showing(page, "#messages li.assistant", (shown) => shown === "ask_human returned: blue");
    expect(await chat(page).locator("#interrupt").isHidden()).toBe(true);
    await page.context().close();
  });

  it("shows another user none of the first user's thread", async () => {
    printLogsOnFailure(replicas);
    const page = await openPage(browser(), `30-web-app-embed-${name}-bob`);
    await page.goto(`${setting().host.origin}/?user=bob`);
    await showing(page, "#messages li", (shown) => shown === "Welcome to the shop!");
    expect(await shownIn(page, "#messages li.user")).toBe("");
    await page.context().close();
  });

  it("cannot be framed by a page on an origin the web app does not allow, and ignores it", async () => {
    printLogsOnFailure(replicas);
    const page = await openPage(browser(), `30-web-app-embed-${name}-stranger`);
    const refused = page.waitForEvent("console", { predicate: (message) => /frame-ancestors/.test(message.text()), timeout: FINISHED });
    await page.goto(`${setting().stranger.origin}/?user=ada`);
    await refused;
    expect(await chat(page).locator("#chat").count()).toBe(0);
    await page.context().close();
  });
}

describe.skipIf(chromiumMissing)("scenario 30: an agent web app embedded in a host page, in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  describe("against one gateway, in memory", () => {
    let gateway: Replica;
    let setting: Setting;
    beforeAll(async () => {
      gateway = new Replica({ replicaId: "solo" });
      await gateway.waitReady();
      setting = await publishWebApp(gateway.url, "web-app-solo");
    });
    afterAll(async () => {
      await Promise.all([setting?.host.stop(), setting?.stranger.stop()]);
      await gateway?.stop("SIGKILL");
    });

    embedJourney("solo", () => setting, () => browser, () => [gateway]);

    it("names an anonymous web app's visitors itself: a visitor's thread survives a reload, another visitor sees none of it", async () => {
      printLogsOnFailure(() => [gateway]);
      const page = await openPage(browser, "30-web-app-embed-solo-visitor");
      await page.goto(`${setting.host.origin}/?app=anonymous`);
      await showing(page, "#messages li", (shown) => shown === "Welcome to the shop!");
      await chat(page).getByRole("button", { name: "Returns" }).click();
      await showing(page, "#messages li.assistant", (shown) => shown === "echo: How do returns work?");
      await page.reload();
      await showing(page, "#messages li.user", (shown) => shown === "How do returns work?");
      await page.context().close();
      // Another browser is another visitor.
      const stranger = await openPage(browser, "30-web-app-embed-solo-visitor-2");
      await stranger.goto(`${setting.host.origin}/?app=anonymous`);
      await showing(stranger, "#messages li", (shown) => shown === "Welcome to the shop!");
      expect(await shownIn(stranger, "#messages li.user")).toBe("");
      await stranger.context().close();
    });

    it("opens a draft in the real page to an operator's preview token only", async () => {
      printLogsOnFailure(() => [gateway]);
      const page = await openPage(browser, "30-web-app-embed-solo-draft");
      const refused = page.waitForResponse((response) => response.url().endsWith("/config"));
      await page.goto(`${setting.host.origin}/?app=draft`);
      expect((await refused).status()).toBe(401);
      expect(await shownIn(page, "#title")).toBe("");
      await page.goto(`${setting.host.origin}/?app=draft&preview`);
      await showing(page, "#title", (shown) => shown === "Shop help (draft)");
      await showing(page, "#messages li", (shown) => shown === "Welcome to the shop!");
      await chat(page).getByRole("button", { name: "Hours" }).click();
      await showing(page, "#messages li.assistant", (shown) => shown === "echo: When are you open?");
      await page.context().close();
    });
  });

  describe.skipIf(nginxMissing)("against three replicas on PostgreSQL, behind nginx", () => {
    let database: TestDatabase;
    let replicas: Replica[] = [];
    let balancer: LoadBalancer;
    let setting: Setting;
    beforeAll(async () => {
      database = await createScenarioDatabase("lattice_e2e_web_app");
      replicas = await startReplicas(3, { databaseUrl: database.url, env: { AXIOM_RUN_LEASE_MS: RUN_LEASE_MS } });
      balancer = await LoadBalancer.start(replicas);
      setting = await publishWebApp(balancer.url, "web-app-replicas");
    });
    afterAll(async () => {
      await Promise.all([setting?.host.stop(), setting?.stranger.stop()]);
      await balancer?.stop();
      await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
      await database?.drop();
    });

    embedJourney("replicas", () => setting, () => browser, () => replicas);

    it("ends an end user's stream on one replica within seconds when an operator disables the web app through another", async () => {
      printLogsOnFailure(() => replicas);
      const [streaming, disabling] = replicas;
      const { operator } = setting;
      // A web app of its own: the other tests of this part go on using theirs.
      const operatorCall = async (replica: Replica, method: string, path: string, body: unknown) => {
        const response = await fetch(`${replica.url}${path}`, { method, headers: operator, body: JSON.stringify(body) });
        expect(response.status, `${method} ${path}`).toBeLessThan(300);
        return (await response.json()) as Record<string, string>;
      };
      const webAppId = (await operatorCall(disabling, "POST", "/api/web-apps", { assistant_id: "shop-helper", name: "Shop help (to disable)", status: "published" })).id;
      const { secret } = await operatorCall(disabling, "POST", `/api/web-apps/${webAppId}/secret`, {});
      const user = { authorization: `Bearer ${signUserToken(secret, webAppId, "erin")}`, "content-type": "application/json" };
      const runtime = (replica: Replica, path: string, body: unknown) => fetch(`${replica.url}/web-apps/${webAppId}${path}`, { method: "POST", headers: user, body: JSON.stringify(body) });
      const { thread_id } = (await (await runtime(streaming, "/threads", {})).json()) as { thread_id: string };
      // 40 words, 200 ms apart: 8 s if nothing ends it.
      const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(" ");
      const stream = await runtime(streaming, `/threads/${thread_id}/stream`, { message: `/drip 200 ${words}` });
      expect(stream.status).toBe(200);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      let received = "";
      while (!received.includes('"type":"text"')) {
        const { value, done } = await reader.read();
        expect(done, "the stream ended before its first words").toBe(false);
        received += value;
      }
      const disabledAt = Date.now();
      await operatorCall(disabling, "PATCH", `/api/web-apps/${webAppId}`, { status: "disabled" });
      for (let read = await reader.read(); !read.done; read = await reader.read()) received += read.value;
      expect(Date.now() - disabledAt).toBeLessThan(5_000);
      expect(received).not.toContain('"type":"done"');
      // Every replica refuses the web app's routes now.
      for (const replica of replicas) expect((await runtime(replica, "/threads", {})).status, replica.replicaId).toBe(403);
    });

    it("shows an answer to its end, once, when the replica running it is killed mid-stream", async () => {
      printLogsOnFailure(() => replicas);
      const page = await openPage(browser, "30-web-app-embed-replicas-kill");
      await page.goto(`${setting.host.origin}/?user=carol`);
      await showing(page, "#messages li", (shown) => shown === "Welcome to the shop!");
      const words = Array.from({ length: 24 }, (_, index) => `w${index}`).join(" ");
      const text = `/drip 250 ${words}`;
      await page.evaluate((message) => (globalThis as unknown as { embed: { send(text: string): void } }).embed.send(message), text);
      await showing(page, "#messages li.assistant", (shown) => shown.startsWith("echo: /drip 250 w0"));
      // The replica running carol's thread (her only thread of the tenant), as the operator sees it.
      const threads = (await (await fetch(`${setting.gateway}/api/threads?assistant_id=shop-helper&limit=100`, { headers: setting.operator })).json()) as { threads: { id: string; metadata: Record<string, string> }[] };
      const thread = threads.threads.find((candidate) => candidate.metadata.web_app_user_id === "carol");
      expect(thread).toBeDefined();
      const { owner } = (await (await fetch(`${setting.gateway}/api/threads/${thread!.id}/queue`, { headers: setting.operator })).json()) as { owner: string | null };
      const victim = replicas.find((replica) => replica.replicaId === owner);
      expect(victim, `owner ${owner}`).toBeDefined();
      await victim!.stop("SIGKILL");
      await showing(page, "#messages li.assistant", (shown) => shown === `echo: ${text}`);
      await page.context().close();
    });
  });
});
