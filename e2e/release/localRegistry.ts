import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { freePort } from "@axiom-lattice/testing";

// A private npm registry on this machine (verdaccio) that holds only @axiom-lattice/*: publishing
// needs a user, reading is open; every other package stays on the public registry.
const CONFIG = `storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
packages:
  "@axiom-lattice/*":
    access: $all
    publish: $authenticated
log: { type: stdout, format: json, level: warn }
`;

const USER = { name: "release", password: "release-password-for-tests" };

export class LocalRegistry {
  private constructor(
    /** The registry URL, with a trailing slash as npm writes it. */
    readonly url: string,
    /** A publishing user's token. */
    readonly token: string,
    private readonly process: ResultPromise,
    private readonly dir: string,
  ) {}

  static async start(timeoutMs = 30_000): Promise<LocalRegistry> {
    const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "axiom-lattice-registry-")));
    await writeFile(path.join(dir, "config.yaml"), CONFIG);
    const url = `http://127.0.0.1:${await freePort()}/`;
    const child = execa("verdaccio", ["--config", path.join(dir, "config.yaml"), "--listen", new URL(url).host], {
      preferLocal: true,
      localDir: __dirname,
      reject: false,
      cleanup: true,
      all: true,
    });
    const deadline = Date.now() + timeoutMs;
    while ((await fetch(`${url}-/ping`).catch(() => undefined))?.status !== 200) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`verdaccio did not start:\n${(await child).all}`);
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 200));
    }
    // npm's `adduser` request: creates the user and answers a token.
    const response = await fetch(`${url}-/user/org.couchdb.user:${USER.name}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(USER),
    });
    const { token } = (await response.json()) as { token?: string };
    if (!token) throw new Error(`verdaccio refused the user: ${response.status}`);
    return new LocalRegistry(url, token, child, dir);
  }

  /** The `.npmrc` line that authenticates npm and pnpm to this registry. */
  get authLine(): string {
    return `//${new URL(this.url).host}/:_authToken=${this.token}`;
  }

  /** The versions of `name` the registry holds (none when it does not know the package). */
  async versionsOf(name: string): Promise<string[]> {
    const response = await fetch(`${this.url}${name.replace("/", "%2f")}`);
    if (response.status === 404) return [];
    const { versions } = (await response.json()) as { versions: Record<string, unknown> };
    return Object.keys(versions);
  }

  async stop(): Promise<void> {
    this.process.kill("SIGTERM");
    await this.process;
    await rm(this.dir, { recursive: true, force: true });
  }
}
