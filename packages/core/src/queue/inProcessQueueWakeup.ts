import { type Logger, defaultLogger } from "../logging/logger";
import type { QueueNotice, QueueWakeup, QueueWakeupListener } from "./queueWakeup";

/** Wake-ups within one process (one replica, or several managers sharing in-memory stores). */
export class InProcessQueueWakeup implements QueueWakeup {
  private readonly listeners = new Set<QueueWakeupListener>();
  private readonly logger: Logger;

  /** `logger` (default: a new {@link defaultLogger}) hears of listeners that fail. */
  constructor(options: { logger?: Logger } = {}) {
    this.logger = options.logger ?? defaultLogger();
  }

  async notify(notice: QueueNotice): Promise<void> {
    // Delivered on a later tick, like a database notification: never re-entrant into the sender.
    setImmediate(() => {
      for (const listener of [...this.listeners]) {
        try {
          listener(notice);
        } catch (error) {
          this.logger.error({ phase: "queue-wakeup", err: error }, "queue wake-up listener failed");
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
