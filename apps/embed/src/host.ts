import { type EmbedConfig, type QuickPrompt, embedEnvelope, readEmbedMessage } from "@axiom-lattice/protocols";

// The host page's side: `AxiomEmbed.mount(element, options)` frames the web app's chat page and, once
// the page says hello, tells it who the user is and how it looks. It listens to the page's origin
// only, and posts to it only.

export interface MountOptions {
  /** The gateway's URL, e.g. `https://chat.example.com` (a path prefix is kept). */
  gateway: string;
  webAppId: string;
  /** The end user's web-app token, signed by the host's backend (a signed web app; an anonymous one names its visitors itself). */
  token?: string;
  /**
   * An operator's preview token (`POST /api/web-apps/{id}/preview-token`): the page opens with it, a
   * draft too, and takes no other identity. Handed over in the frame's fragment, which no request carries.
   */
  previewToken?: string;
  welcome?: string;
  quicks?: QuickPrompt[];
}

export interface Embed {
  /** Sends `text` as the user. */
  send(text: string): void;
  /** A new token (the user changed, or the old one nears its expiry). */
  identify(token: string): void;
  configure(config: EmbedConfig): void;
  /** Removes the frame and stops listening. */
  destroy(): void;
  readonly frame: HTMLIFrameElement;
}

export function mount(element: HTMLElement, options: MountOptions): Embed {
  const gateway = new URL(options.gateway.replace(/\/*$/, "/"), location.href);
  const origin = gateway.origin;
  const frame = document.createElement("iframe");
  const page = new URL(`embed/${encodeURIComponent(options.webAppId)}`, gateway);
  if (options.previewToken !== undefined) page.hash = new URLSearchParams({ preview: options.previewToken }).toString();
  frame.src = page.href;
  frame.title = "Chat";
  frame.style.cssText = "width: 100%; height: 100%; border: 0;";
  element.append(frame);

  let ready = false;
  // What the page is told once it said hello (and again after a reload of the frame).
  let token = options.token;
  const config: EmbedConfig = { welcome: options.welcome, quicks: options.quicks };
  const pending: string[] = [];

  const post = (message: unknown) => frame.contentWindow?.postMessage(message, origin);
  const greet = () => {
    if (config.welcome !== undefined || config.quicks !== undefined) post(embedEnvelope("axiom:config", config));
    if (token !== undefined) post(embedEnvelope("axiom:identity", { token }));
    for (const text of pending.splice(0)) post(embedEnvelope("axiom:send", { text }));
  };
  const listener = (event: MessageEvent) => {
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    if (readEmbedMessage(event.data)?.type !== "axiom:hello") return;
    ready = true;
    greet();
  };
  window.addEventListener("message", listener);

  return {
    frame,
    send(text) {
      if (ready) post(embedEnvelope("axiom:send", { text }));
      else pending.push(text);
    },
    identify(next) {
      token = next;
      if (ready) post(embedEnvelope("axiom:identity", { token: next }));
    },
    configure(next) {
      Object.assign(config, next);
      if (ready) post(embedEnvelope("axiom:config", next));
    },
    destroy() {
      window.removeEventListener("message", listener);
      frame.remove();
    },
  };
}
