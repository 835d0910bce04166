import type { AppendOutboxEventInput, TransactionStores, UnitOfWork } from "@axiom-lattice/protocols";
import type { InMemoryOutboxStore } from "../outbox/inMemoryOutboxStore";
import { validateOutboxAppend } from "../outbox/outboxArguments";
import type { InMemoryTaskStore } from "../tasks/inMemoryTaskStore";

/**
 * {@link UnitOfWork} over the in-memory stores: task writes are staged (see
 * {@link InMemoryTaskStore.transaction}) and appends held back; both land in the same synchronous
 * step when the work resolves, and neither when it throws.
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  constructor(private readonly stores: { tasks: InMemoryTaskStore; outbox: InMemoryOutboxStore }) {}

  inTransaction<T>(fn: (tx: TransactionStores) => Promise<T>): Promise<T> {
    const appends: AppendOutboxEventInput[] = [];
    const outbox = {
      // Refused now, as PostgreSQL refuses it inside the transaction: the commit then cannot fail.
      append: async (input: AppendOutboxEventInput) => {
        validateOutboxAppend(input);
        appends.push(input);
      },
    };
    return this.stores.tasks.transaction(
      (tasks) => fn({ tasks, outbox }),
      // The in-memory append stores its event before its first await: every event lands in this step.
      () => appends.forEach((input) => void this.stores.outbox.append(input)),
    );
  }
}
