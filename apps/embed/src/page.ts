import { type EmbedConfig, type QuickPrompt, embedEnvelope, readEmbedMessage } from "@axiom-lattice/protocols";
import { allowedHostOrigin } from "./hostOrigin";
import type { SseEvent } from "./sseEvents";
import { type PendingInterrupt, RuntimeClient, RuntimeError, type Turn, type WebAppConfig } from "./runtimeClient";
import "./style.css";

// The embedded chat: it learns who the user is from the host page (axiom:identity), never from its
// own address, and talks only to the host origin the web app allows. Two exceptions: an anonymous web
// app's page takes a visitor token from the gateway and keeps it; an operator's preview token comes
// in the fragment (`#preview=<token>`, never sent to a server), since a draft shows the page nothing,
// not even the host origin it may listen to, before a token opens it.

const NO_IDENTITY = "Open this chat from the host page embed to start chatting.";

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const [title, notice, list, quickBar, composer, input, questionForm, question, answerInput] = [
  element("title"),
  element("notice"),
  element<HTMLOListElement>("messages"),
  element("quicks"),
  element<HTMLFormElement>("composer"),
  element<HTMLTextAreaElement>("input"),
  element<HTMLFormElement>("interrupt"),
  element("question"),
  element<HTMLInputElement>("answer"),
];

// /…/embed/{id}: the runtime routes are under the same prefix, at /…/web-apps/{id}.
const prefix = location.pathname.slice(0, location.pathname.lastIndexOf("/embed/"));
const webAppId = decodeURIComponent(location.pathname.slice(prefix.length + "/embed/".length));
const client = new RuntimeClient(`${location.origin}${prefix}/web-apps/${encodeURIComponent(webAppId)}`);

let welcome: string | undefined;
let quicks: QuickPrompt[] = [];
let threadId: string | undefined;
let busy = false;
/** What the thread waits on: answered through the question form, not by a new message. */
let waitingOn: PendingInterrupt | undefined;
/** Messages sent while a run streams or before the thread is open: sent in turn, none dropped. */
const pending: string[] = [];

function showNotice(text: string | undefined): void {
  notice.hidden = text === undefined;
  notice.textContent = text ?? "";
}

function addTurn({ role, content }: Turn): HTMLLIElement {
  const item = document.createElement("li");
  item.className = role;
  item.textContent = content;
  list.append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

function renderQuicks(): void {
  quickBar.replaceChildren(
    ...quicks.map((quick) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = quick.label;
      button.addEventListener("click", () => send(quick.text));
      return button;
    }),
  );
  quickBar.hidden = threadId === undefined || busy;
}

function renderTurns(turns: Turn[]): void {
  list.replaceChildren();
  if (turns.length === 0 && welcome) addTurn({ role: "assistant", content: welcome }).classList.add("welcome");
  for (const turn of turns) addTurn(turn);
}

function applyConfig(config: EmbedConfig | WebAppConfig): void {
  if (config.welcome !== undefined) welcome = config.welcome;
  if (config.quicks !== undefined) quicks = config.quicks;
  // A thread with no turns yet shows the new welcome.
  if (threadId !== undefined && !list.querySelector("li:not(.welcome)")) renderTurns([]);
  renderQuicks();
}

/** What a token claims, read (not verified: the gateway verifies it) to remember the user's thread and renew a visitor's token. */
function claimsOf(token: string): { sub?: unknown; iat?: unknown; exp?: unknown } {
  try {
    return JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) as { sub?: unknown };
  } catch {
    return {};
  }
}

let threadKey = "";

/** The user's thread: the one this browser remembers for them, or a new one. */
async function openThread(): Promise<void> {
  let turns: Turn[] = [];
  let interrupts: PendingInterrupt[] = [];
  const remembered = localStorage.getItem(threadKey);
  if (remembered !== null) {
    try {
      ({ messages: turns, interrupts } = await client.thread(remembered));
      threadId = remembered;
    } catch (error) {
      if (!(error instanceof RuntimeError && error.status === 404)) throw error;
    }
  }
  if (threadId === undefined) {
    threadId = await client.createThread();
    localStorage.setItem(threadKey, threadId);
  }
  renderTurns(turns);
  composer.hidden = false;
  showNotice(undefined);
  ask(interrupts[0]);
  renderQuicks();
  void sendPending();
}

async function identify(token: string): Promise<void> {
  client.setToken(token);
  threadKey = `axiom-embed:${webAppId}:${String(claimsOf(token).sub ?? "")}`;
  threadId = undefined;
  try {
    await openThread();
  } catch (error) {
    showNotice(error instanceof Error ? error.message : String(error));
  }
}

function send(text: string): void {
  if (!text.trim()) return;
  pending.push(text);
  void sendPending();
}

/** Shows what the thread waits on (or nothing): the user answers it in the question form. */
function ask(interrupt: PendingInterrupt | undefined): void {
  waitingOn = interrupt;
  questionForm.hidden = interrupt === undefined;
  const value = interrupt?.value as { question?: unknown } | string | undefined;
  question.textContent = typeof value === "string" ? value : String(value?.question ?? JSON.stringify(value ?? ""));
  if (interrupt) answerInput.focus();
}

async function sendPending(): Promise<void> {
  if (busy || threadId === undefined || waitingOn !== undefined) return;
  const text = pending.shift();
  if (text === undefined) return;
  list.querySelector(".welcome")?.remove();
  addTurn({ role: "user", content: text });
  await showAnswer(client.send(threadId, text));
}

/** Shows a run's answer as it streams in; what the run ends waiting on is asked next. */
async function showAnswer(events: AsyncGenerator<SseEvent>): Promise<void> {
  busy = true;
  renderQuicks();
  const answer = addTurn({ role: "assistant", content: "" });
  answer.classList.add("streaming");
  let content = "";
  // Where the step in progress began: another replica taking the run over streams that step again.
  let stepStart = 0;
  try {
    for await (const { data } of events) {
      const event = data as { type: string; text?: string; name?: string; phase?: string; error?: string; interrupts?: PendingInterrupt[] };
      if (event.type === "text") content += event.text ?? "";
      if (event.type === "resumed") content = content.slice(0, stepStart);
      if (event.type === "tool" && event.name) answer.dataset.tool = event.name;
      if (event.type === "tool" && event.phase === "result") stepStart = content.length;
      if (event.type === "interrupt") ask(event.interrupts?.[0]);
      if (event.type === "error") content += `\n${event.error ?? "The answer failed"}`;
      answer.textContent = content;
      answer.scrollIntoView({ block: "end" });
    }
  } catch (error) {
    answer.textContent = `${content}\n${error instanceof Error ? error.message : String(error)}`;
  } finally {
    answer.classList.remove("streaming");
    // A run that only asked a question shows the question, not an empty answer.
    if (!answer.textContent) answer.remove();
    busy = false;
    renderQuicks();
    void sendPending();
  }
}

questionForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const response = answerInput.value;
  if (busy || threadId === undefined || waitingOn?.id === undefined || !response.trim()) return;
  const interruptId = waitingOn.id;
  answerInput.value = "";
  ask(undefined);
  addTurn({ role: "user", content: response });
  void showAnswer(client.answer(threadId, interruptId, response));
});

composer.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value;
  input.value = "";
  send(text);
});

/** Where this browser keeps an anonymous web app's visitor token (per host site: browsers partition a framed page's storage). */
const visitorKey = `axiom-embed-visitor:${webAppId}`;

/**
 * The visitor token of an anonymous web app: the one this browser keeps, renewed past half its life
 * (so a visitor who returns within its lifetime keeps their threads), or a new visitor's.
 */
async function visitorToken(): Promise<string> {
  const kept = localStorage.getItem(visitorKey);
  const { iat, exp } = kept === null ? {} : claimsOf(kept);
  const now = Date.now() / 1000;
  if (kept !== null && typeof iat === "number" && typeof exp === "number" && exp > now) {
    if (now < (iat + exp) / 2) return kept;
    client.setToken(kept);
    try {
      return remember(await client.admitVisitor());
    } catch (error) {
      // Refused (the web app changed its keys or mode): a new visitor. Anything else, the kept token still serves.
      if (!(error instanceof RuntimeError && error.status === 401)) return kept;
    }
  }
  client.setToken(undefined);
  return remember(await client.admitVisitor());
}

function remember(token: string): string {
  localStorage.setItem(visitorKey, token);
  return token;
}

async function start(): Promise<void> {
  showNotice(NO_IDENTITY);
  const preview = new URLSearchParams(location.hash.slice(1)).get("preview") ?? undefined;
  if (preview !== undefined) client.setToken(preview);
  let config: WebAppConfig | undefined;
  try {
    config = await client.config();
  } catch {
    // A draft shows its appearance only to a preview token; the host's allowed origin is still unknown.
    return;
  }
  title.textContent = config.title ?? config.name;
  if (config.accent_color) document.documentElement.style.setProperty("--accent", config.accent_color);
  applyConfig(config);
  // An operator previewing needs no host: the page opened on its own in a tab works too.
  if (preview !== undefined) void identify(preview);
  const host = allowedHostOrigin(config.allowed_origins);
  if (host === undefined) return;
  // Who the user is comes from the host only for a signed web app, and never overrides a preview.
  const hostIdentifies = preview === undefined && config.identity.mode === "signed";
  window.addEventListener("message", (event) => {
    if (event.origin !== host || event.source !== window.parent) return;
    const message = readEmbedMessage(event.data);
    if (message?.type === "axiom:identity" && hostIdentifies) void identify(message.payload.token);
    if (message?.type === "axiom:config") applyConfig(message.payload);
    if (message?.type === "axiom:send") send(message.payload.text);
  });
  window.parent.postMessage(embedEnvelope("axiom:hello", {}), host);
  if (preview === undefined && config.identity.mode === "anonymous") {
    try {
      await identify(await visitorToken());
    } catch (error) {
      showNotice(error instanceof Error ? error.message : String(error));
    }
  }
}

void start();
