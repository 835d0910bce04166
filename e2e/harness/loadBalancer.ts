import { execa, type ResultPromise } from "execa";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Replica } from "./replica";

/** The nginx example the deployment docs ship; the suite runs exactly this file. */
const SITE_CONFIG = resolve(__dirname, "../../docs/nginx/lattice-gateway.conf");

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** nginx (Debian's package) in front of replicas `replica-1…3`, configured by the docs' example file. */
export class LoadBalancer {
  private constructor(
    readonly url: string,
    private readonly process: ResultPromise,
    private readonly dir: string,
  ) {}

  static async start(replicas: Replica[]): Promise<LoadBalancer> {
    const dir = mkdtempSync(join(tmpdir(), "lattice-nginx-"));
    const port = await freePort();
    let site = readFileSync(SITE_CONFIG, "utf8").replace("listen 127.0.0.1:8080;", `listen 127.0.0.1:${port};`);
    replicas.forEach((replica, i) => {
      if (replica.replicaId !== `replica-${i + 1}`) throw new Error(`the example routes replica-${i + 1}, got ${replica.replicaId}`);
      site = site.replaceAll(`127.0.0.1:${4001 + i};`, `${new URL(replica.url).host};`);
    });
    writeFileSync(join(dir, "site.conf"), site);
    writeFileSync(
      join(dir, "nginx.conf"),
      [
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log warn;`,
        "events { worker_connections 1024; }",
        "http {",
        "  access_log off;",
        `  client_body_temp_path ${dir}/body;`,
        `  proxy_temp_path ${dir}/proxy;`,
        `  include ${dir}/site.conf;`,
        "}",
      ].join("\n"),
    );
    const process = execa("nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off; user root;"], {
      reject: false,
      cleanup: true,
    });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await fetch(`${url}/ready`).catch(() => undefined);
      if (response?.status === 200) return new LoadBalancer(url, process, dir);
      if (process.exitCode !== null || Date.now() > deadline) {
        process.kill("SIGKILL");
        const result = await process;
        throw new Error(`nginx did not start: ${result.stderr}\n${readFileSync(join(dir, "error.log"), "utf8")}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    this.process.kill("SIGQUIT");
    await this.process;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
