// The LangGraph JS API server (`@langchain/langgraph-api`, in memory), as its users start it locally:
// `langgraphjs dev` from `@langchain/langgraph-cli` on the bench's own langgraph.json (peer/).
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { ServerProcess } from "./serverProcess";

const PEER_DIR = resolve(__dirname, "../peer");
const CLI = require.resolve("@langchain/langgraph-cli/dist/cli/cli.mjs");

/** A port free now: the CLI takes no port 0 (it prints the port it was given, not one it bound). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === "string") throw new Error("no TCP port was assigned");
  return address.port;
}

/** Starts the reference server on a free port and resolves once `/ok` answers 200. */
export async function startLangGraphPeer(name: string): Promise<ServerProcess> {
  // The in-memory server saves its state there on exit and loads it on start: every start is fresh.
  rmSync(resolve(PEER_DIR, ".langgraph_api"), { recursive: true, force: true });
  const port = await freePort();
  return ServerProcess.start({
    name,
    nodeArgs: [CLI, "dev", "--no-browser", "--host", "127.0.0.1", "--port", String(port), "--config", resolve(PEER_DIR, "langgraph.json")],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LANGGRAPH_CLI_NO_ANALYTICS: "1", LANGSMITH_TRACING: "false" },
    url: `http://127.0.0.1:${port}`,
    readyPath: "/ok",
    processGroup: true,
    timeoutMs: 90_000,
  });
}
