import { type Logger, getLogger } from "../logging/logger";
import type { QueueNotice, QueueWakeup, QueueWakeupListener } from "./queueWakeup";

/** Wake-ups within one process (one replica, or several managers sharing in-memory stores). */
export class InProcessQueueWakeup implements QueueWakeup {
  private readonly listeners = new Set<QueueWakeupListener>();

  /** `logger` (default: the process-wide one) hears of listeners that fail. */
  constructor(private readonly options: { logger?: Logger } = {}) {}

  async notify(notice: QueueNotice): Promise<void> {
    // Delivered on a later tick, like a database notification: never re-entrant into the sender.
    setImmediate(() => {
      for (const listener of [...this.listeners]) {
        try {
          listener(notice);
        } catch (error) {
          (this.options.logger ?? getLogger()).error({ phase: "queue-wakeup", err: error }, "queue wake-up listener failed");
        }
      }
    });
  }

  subscribe(listener: QueueWakeupListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
