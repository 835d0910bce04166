// The baseline process of B4: a bare Fastify route answering `POST /api/runs` with what the gateway
// answers for `mode: "queue"` — 202 `{ messageId, queued: true }` — without validation, stores or agents.
import Fastify from "fastify";
import { randomUUID } from "node:crypto";

async function main(): Promise<void> {
  const app = Fastify();
  app.post("/api/runs", async (_request, reply) => reply.status(202).send({ messageId: randomUUID(), queued: true }));
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  process.on("SIGTERM", () => void app.close());
  process.stdout.write(`B4 baseline ready at ${url}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
