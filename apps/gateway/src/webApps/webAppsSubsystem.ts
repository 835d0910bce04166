import { WEB_APP_CHANGED_TOPIC } from "@axiom-lattice/protocols";
import type { OutboxAnnounce } from "../context/outboxAnnounce";
import type { Subsystem } from "../context/subsystem";
import { WebAppRuntime, type WebAppRuntimeOptions } from "./webAppRuntime";

export interface WebAppsSubsystem extends Subsystem {
  webApps: WebAppRuntime;
}

/**
 * Agent web apps: assistants published to end users, who chat on threads of their own. A web app an
 * operator disables or removes is announced; each replica ends its open streams of it.
 */
export function webAppsSubsystem({ announce, ...options }: Omit<WebAppRuntimeOptions, "announceChange"> & { announce: OutboxAnnounce }): WebAppsSubsystem {
  const webApps = new WebAppRuntime({ ...options, announceChange: (tenantId, webAppId) => announce(WEB_APP_CHANGED_TOPIC, { tenantId, webAppId }) });
  return { name: "web-apps", webApps, outboxHandlers: { [WEB_APP_CHANGED_TOPIC]: ({ webAppId }) => webApps.refresh(webAppId) } };
}
