import { setTimeout as sleep } from "node:timers/promises";
import { call } from "./client";
import type { Replica } from "./replica";
import type { ReplicaFleet } from "./replicaFleet";
import { ASSISTANT } from "./workloads";

/** A message some replica accepted (202, or 409 `DUPLICATE_MESSAGE` when an earlier attempt was). */
export interface AcceptedMessage {
  messageId: string;
  text: string;
}

/** How long one message may take to find a replica that accepts it. */
const DELIVERY_BOUND_MS = 60_000;

/** Every answer the fleet gave, and the ones that break "no 5xx, no dropped connection, from a live replica". */
export class HttpTally {
  /** Count per HTTP status, or per kind of dropped connection (`dropped:killed`, `dropped:live`). */
  readonly statuses: Record<string, number> = {};
  readonly serverErrors: string[] = [];
  readonly droppedByLive: string[] = [];

  record(outcome: string): void {
    this.statuses[outcome] = (this.statuses[outcome] ?? 0) + 1;
  }
}

/**
 * One thread's messages, sent one after another (the next only once the previous was accepted), each
 * to a random live replica. A replica that drops the connection is assumed dead: the same message id
 * goes to another replica, where 409 `DUPLICATE_MESSAGE` means the dead one had accepted it.
 * `accepted` lists the messages in acceptance order, the order the thread must answer them in.
 */
export class ThreadFeed {
  readonly accepted: AcceptedMessage[] = [];
  private tail: Promise<unknown> = Promise.resolve();
  private sent = 0;

  constructor(
    readonly threadId: string,
    private readonly fleet: ReplicaFleet,
    private readonly tally: HttpTally,
  ) {}

  /**
   * Queues `text` (by default a plain one unique to the message, `<thread> m<n>`) behind every
   * earlier send on this thread; settles once it is accepted.
   */
  send(text?: string): Promise<AcceptedMessage> {
    const n = this.sent++;
    const message = { messageId: `${this.threadId}-m${n}`, text: text ?? `${this.threadId} m${n}` };
    const delivered = this.tail.then(async () => {
      await this.deliver(message);
      this.accepted.push(message);
      return message;
    });
    this.tail = delivered.catch(() => undefined);
    return delivered;
  }

  private async deliver({ messageId, text }: AcceptedMessage): Promise<void> {
    const body = { assistant_id: ASSISTANT, thread_id: this.threadId, message: text, message_id: messageId, mode: "queue" };
    const deadline = Date.now() + DELIVERY_BOUND_MS;
    let replica = this.fleet.any();
    for (let attempt = 1; !(await this.attempt(replica, body, attempt)); attempt++) {
      if (Date.now() > deadline) throw new Error(`${messageId} found no replica to accept it within ${DELIVERY_BOUND_MS} ms`);
      replica = this.fleet.any(replica);
      await sleep(20);
    }
  }

  /** One POST, recorded: true once accepted, false to retry elsewhere; throws on an answer no retry can fix. */
  private async attempt(replica: Replica, body: { message_id: string }, attempt: number): Promise<boolean> {
    const response = await call(replica.url, "POST", "/api/runs", body).catch(() => undefined);
    if (!response) {
      const killed = this.fleet.wasKilled(replica);
      this.tally.record(killed ? "dropped:killed" : "dropped:live");
      if (!killed) this.tally.droppedByLive.push(`${replica.replicaId} dropped POST ${body.message_id}`);
      return false;
    }
    this.tally.record(String(response.status));
    if (response.status >= 500) {
      this.tally.serverErrors.push(`${replica.replicaId} answered ${response.status} to ${body.message_id}: ${response.text}`);
      return false;
    }
    if (response.status === 202) return true;
    if (response.status === 409 && attempt > 1 && response.json<{ code?: string }>().code === "DUPLICATE_MESSAGE") return true;
    throw new Error(`${replica.replicaId} answered ${response.status} to ${body.message_id} (attempt ${attempt}): ${response.text}`);
  }
}
