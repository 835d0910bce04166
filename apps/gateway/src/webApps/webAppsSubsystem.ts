import type { Subsystem } from "../context/subsystem";
import { WebAppRuntime, type WebAppRuntimeOptions } from "./webAppRuntime";

export interface WebAppsSubsystem extends Subsystem {
  webApps: WebAppRuntime;
}

/** Agent web apps: assistants published to end users, who chat on threads of their own. */
export function webAppsSubsystem(options: WebAppRuntimeOptions): WebAppsSubsystem {
  return { name: "web-apps", webApps: new WebAppRuntime(options) };
}
