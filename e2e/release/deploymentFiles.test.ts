import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { workspaceRoot } from "./workspace";

// The deployment guide's ports, the Dockerfile and compose.yaml, read as files. A reader follows the
// README, whose gateways stay up, then the guide: its replicas must find their ports free. No base
// image can be pulled on this machine, so the image is never built here (docs/deployment.md,
// Containers, says so). What can be checked is checked: the compose file parses, runs the documented
// nginx.conf against replicas on the addresses that file routes to, and the Dockerfile installs the
// gateway the way the README's Installing does.

interface ComposeService {
  build?: unknown;
  image?: string;
  network_mode?: string;
  command?: string[];
  volumes?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}

const read = (file: string) => readFile(path.join(workspaceRoot, file), "utf8");

async function composeServices(): Promise<Record<string, ComposeService>> {
  // merge: YAML merge keys (`<<: *replica`), as docker compose resolves them.
  const compose = parse(await read("compose.yaml"), { merge: true }) as { services: Record<string, ComposeService> };
  return compose.services;
}

/** The `server` address of each `upstream lattice_replica_N { … }` of the documented nginx.conf. */
async function documentedReplicaAddresses(): Promise<Map<string, string>> {
  const conf = await read("docs/nginx/nginx.conf");
  return new Map([...conf.matchAll(/upstream lattice_replica_(\d+) \{ server ([\d.]+:\d+); \}/g)].map((match) => [`replica-${match[1]}`, match[2]]));
}

/** The Dockerfile's stages: each `FROM` line with the instructions up to the next one, continuations joined. */
async function dockerStages(): Promise<string[][]> {
  const lines = (await read("Dockerfile"))
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"));
  const stages: string[][] = [];
  for (const line of lines) {
    if (line.startsWith("FROM ")) stages.push([]);
    stages.at(-1)?.push(line);
  }
  return stages;
}

/** The ports `PORT=…` gives in the fenced `sh` blocks of a markdown file. */
async function documentedPorts(file: string): Promise<Set<number>> {
  const blocks = [...(await read(file)).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  return new Set(blocks.flatMap((block) => [...block.matchAll(/\bPORT=(\d+)/g)].map((match) => Number(match[1]))));
}

describe("the deployment guide, followed after the README", () => {
  it("starts its replicas on ports none of the README's gateways holds, and nginx on another", async () => {
    // scripts/start.sh's gateway ("Try it") listens on the default port, 4001.
    const readme = new Set([4001, ...(await documentedPorts("README.md"))]);
    const guide = await documentedPorts("docs/deployment.md");
    expect(guide.size).toBeGreaterThan(0);
    expect([...guide].filter((port) => readme.has(port))).toEqual([]);
    expect(readme.has(8080)).toBe(false);
  });

  it("starts replica-1…3 on the ports the documented nginx.conf routes them to", async () => {
    const guide = await read("docs/deployment.md");
    for (const [replicaId, address] of await documentedReplicaAddresses()) {
      const port = address.split(":")[1];
      expect(guide, replicaId).toContain(`AXIOM_REPLICA_ID=${replicaId} PORT=${port} npx lattice-gateway`);
    }
  });
});

describe("compose.yaml", () => {
  it("runs PostgreSQL, nginx and three replicas", async () => {
    expect(Object.keys(await composeServices()).sort()).toEqual(["nginx", "postgres", "replica-1", "replica-2", "replica-3"]);
  });

  it("runs nginx on the documented nginx.conf, unchanged, publishing its port 8080 alone", async () => {
    const { nginx, ...others } = await composeServices();
    expect(nginx.volumes).toContain("./docs/nginx/nginx.conf:/etc/lattice/nginx.conf:ro");
    expect(nginx.command?.join(" ")).toContain("nginx -p /var/lib/lattice-nginx -c /etc/lattice/nginx.conf");
    expect(nginx.ports).toEqual(["8080:8080"]);
    expect((await read("docs/nginx/nginx.conf")).includes("listen 8080;")).toBe(true);
    for (const [name, service] of Object.entries(others)) expect(service.ports, name).toBeUndefined();
  });

  it("gives each replica the id and the port the documented nginx.conf routes to, in nginx's network", async () => {
    const services = await composeServices();
    const addresses = await documentedReplicaAddresses();
    expect([...addresses.keys()].sort()).toEqual(["replica-1", "replica-2", "replica-3"]);
    for (const [replicaId, address] of addresses) {
      const replica = services[replicaId];
      expect(replica.network_mode, replicaId).toBe("service:nginx");
      expect(replica.environment?.AXIOM_REPLICA_ID, replicaId).toBe(replicaId);
      expect(`${replica.environment?.HOST}:${replica.environment?.PORT}`, replicaId).toBe(address);
    }
  });

  it("builds the replicas from the Dockerfile, on one database, with authentication on and the key set", async () => {
    const services = await composeServices();
    for (const replicaId of ["replica-1", "replica-2", "replica-3"]) {
      const { build, environment = {}, depends_on } = services[replicaId];
      expect(build, replicaId).toBe(".");
      expect(environment.DATABASE_URL, replicaId).toMatch(/^postgres:\/\/lattice:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/lattice$/);
      expect(environment.AUTH_REQUIRED, replicaId).toBe("true");
      expect(environment.AUTH_TOKEN_SECRET, replicaId).toMatch(/^\$\{AUTH_TOKEN_SECRET:\?/);
      expect(environment.LATTICE_ENCRYPTION_KEY, replicaId).toMatch(/^\$\{LATTICE_ENCRYPTION_KEY:\?/);
      expect(depends_on?.postgres, replicaId).toEqual({ condition: "service_healthy" });
    }
    expect(services.postgres.healthcheck).toBeDefined();
  });
});

describe("the Dockerfile", () => {
  it("builds in one stage and runs, from a slim Node.js 20 image, in another", async () => {
    const stages = await dockerStages();
    expect(stages).toHaveLength(2);
    expect(await read("Dockerfile")).toMatch(/^ARG NODE_IMAGE=node:20-slim$/m);
    expect(stages[0][0]).toBe("FROM ${NODE_IMAGE} AS build");
    expect(stages[1][0]).toBe("FROM ${NODE_IMAGE}");
  });

  it("packs with the workspace's own script and installs the tarballs with the README's npm command", async () => {
    const [build, runtime] = await dockerStages();
    const manifest = JSON.parse(await read("package.json")) as { scripts: Record<string, string> };
    expect(manifest.scripts["release:pack"]).toBeDefined();
    expect(build).toContain("RUN pnpm install --frozen-lockfile && pnpm release:pack");
    expect(runtime.find((line) => line.startsWith("RUN "))).toContain("npm install --omit=dev --no-audit --no-fund ./axiom-lattice-*.tgz");
    expect(await read("README.md")).toContain("npm install ./axiom-lattice-*.tgz");
  });

  it("runs lattice-gateway as an unprivileged user, probing /health", async () => {
    const runtime = (await dockerStages())[1];
    const user = runtime.filter((line) => line.startsWith("USER "));
    expect(user).toEqual(["USER node"]);
    // The user is switched after the install, so the process cannot rewrite the code it runs.
    expect(runtime.indexOf("USER node")).toBeGreaterThan(runtime.findIndex((line) => line.includes("npm install")));
    expect(runtime.find((line) => line.startsWith("HEALTHCHECK "))).toMatch(/\/health/);
    expect(runtime.at(-1)).toBe('ENTRYPOINT ["/app/node_modules/.bin/lattice-gateway"]');
  });

  it("is given a .dockerignore that keeps the checkout's installs and builds out of the context", async () => {
    const ignored = (await read(".dockerignore")).split("\n").filter((line) => line && !line.startsWith("#"));
    expect(ignored).toEqual(expect.arrayContaining(["**/node_modules", "**/dist", "release"]));
  });
});
