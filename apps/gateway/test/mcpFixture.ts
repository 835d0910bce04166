import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

/** The SDK-built MCP server the tests connect to (see the file for its tools). */
export const MCP_FIXTURE = fileURLToPath(new URL("./fixtures/mcpFixtureServer.mjs", import.meta.url));

/**
 * The fixture served over Streamable HTTP by a child process; its url once it listens. Given
 * `authorization`, it refuses (401) every request without exactly that Authorization header.
 */
export async function startHttpFixture(authorization?: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [MCP_FIXTURE, "http", ...(authorization === undefined ? [] : [authorization])], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  const port = /listening (\d+)/.exec(line.toString())?.[1];
  if (!port) throw new Error(`fixture did not start: ${line.toString()}`);
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}
