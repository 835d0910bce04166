import { execa, type ResultPromise } from "execa";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import type { Replica } from "./replica";
import { freePort } from "@axiom-lattice/testing";

/** The nginx.conf the deployment docs ship; the suite runs exactly this file. */
export const DOCUMENTED_NGINX_CONF = resolve(__dirname, "../../docs/nginx/nginx.conf");

/** The port the documented file listens on, and the addresses of its replicas `replica-1…3` (4011…4013). */
const DOCUMENTED_LISTEN = "listen 8080;";
const DOCUMENTED_REPLICA_ADDRESS = /127\.0\.0\.1:401([1-3])(?=[ ;])/g;

/** The nginx binary: on PATH, or where Debian puts it (/usr/sbin is not on every user's PATH). */
export function findNginx(): string | undefined {
  const candidates = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), "/usr/sbin"].map((dir) => join(dir, "nginx"));
  return candidates.find((candidate) => existsSync(candidate));
}

/** The documented file with its listen port and replica addresses replaced, and nothing else. */
function configFor(port: number, replicas: Replica[]): string {
  const documented = readFileSync(DOCUMENTED_NGINX_CONF, "utf8");
  if (!documented.includes(DOCUMENTED_LISTEN)) throw new Error(`${DOCUMENTED_NGINX_CONF} no longer holds "${DOCUMENTED_LISTEN}"; update the harness with the docs`);
  if (replicas.length !== 3) throw new Error(`the documented file routes three replicas, got ${replicas.length}`);
  replicas.forEach((replica, i) => {
    if (replica.replicaId !== `replica-${i + 1}`) throw new Error(`the documented file routes replica-${i + 1}, got ${replica.replicaId}`);
  });
  return documented
    .replace(DOCUMENTED_LISTEN, `listen 127.0.0.1:${port};`)
    .replace(DOCUMENTED_REPLICA_ADDRESS, (_address, n: string) => new URL(replicas[Number(n) - 1].url).host);
}

/**
 * The documented nginx.conf in front of replicas `replica-1…3`. The only changes: the listen port
 * and the replicas' addresses (free ports here). Its relative paths (pid, logs, temporary files)
 * land in a fresh prefix folder, passed with `-p` as the docs say.
 */
export class LoadBalancer {
  private constructor(
    readonly url: string,
    private readonly process: ResultPromise,
    private readonly dir: string,
  ) {}

  static async start(replicas: Replica[]): Promise<LoadBalancer> {
    const nginx = findNginx();
    if (!nginx) throw new Error("nginx is not installed");
    const dir = mkdtempSync(join(tmpdir(), "lattice-nginx-"));
    const port = await freePort();
    const configFile = join(dir, "nginx.conf");
    writeFileSync(configFile, configFor(port, replicas));
    const process = execa(nginx, ["-p", dir, "-c", configFile, "-e", join(dir, "error.log"), "-g", "daemon off;"], {
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
        const errorLog = existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log"), "utf8") : "";
        throw new Error(`nginx did not start: ${result.stderr}\n${errorLog}`);
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
