// The baseline process of B4: a bare Fastify route doing what an enqueue must, and nothing else — one
// `INSERT` of the message into the gateway's queue table with pg, on a pool of the gateway's size —
// and answering what the gateway answers for `mode: "queue"`: 202 `{ message_id, queued: true }`.
// No validation, no thread or assistant lookup, no capacity check, no notice to workers.
import Fastify from "fastify";
import { randomUUID } from "node:crypto";
import { Pool } from "pg";

const INSERT = `
  INSERT INTO lattice_thread_message_queue
         (id, thread_id, tenant_id, assistant_id, content, priority, sequence, status, run_status, created_at)
  VALUES ($1, $2, 'default', $3, $4::jsonb, 0, nextval('lattice_thread_message_queue_sequence'), 'pending', 'pending', now())`;

interface EnqueueBody {
  assistant_id: string;
  thread_id: string;
  message: string;
}

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_MAX) });
  const app = Fastify();
  app.post<{ Body: EnqueueBody }>("/api/runs", async (request, reply) => {
    const { assistant_id: assistantId, thread_id: threadId, message } = request.body;
    const id = randomUUID();
    await pool.query(INSERT, [id, threadId, assistantId, JSON.stringify({ message })]);
    return reply.status(202).send({ message_id: id, queued: true });
  });
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  process.on("SIGTERM", () => void app.close().then(() => pool.end()));
  process.stdout.write(`B4 baseline ready at ${url}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
