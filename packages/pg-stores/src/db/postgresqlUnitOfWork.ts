import type { TransactionStores, UnitOfWork } from "@axiom-lattice/protocols";
import type { Pool } from "pg";
import type { PostgreSQLOutboxStore } from "../outbox/postgresqlOutboxStore";
import type { PostgreSQLTaskStore } from "../tasks/postgresqlTaskStore";
import { inTransaction } from "./transaction";

export interface PostgreSQLUnitOfWorkOptions {
  /** The pool the stores share. */
  pool: Pool;
  tasks: PostgreSQLTaskStore;
  outbox: PostgreSQLOutboxStore;
}

/**
 * {@link UnitOfWork} on one connection of the shared pool: the task store and the outbox join its
 * transaction, so an event commits (and wakes peers by its NOTIFY) with the write it announces.
 */
export class PostgreSQLUnitOfWork implements UnitOfWork {
  constructor(private readonly options: PostgreSQLUnitOfWorkOptions) {}

  async inTransaction<T>(fn: (tx: TransactionStores) => Promise<T>): Promise<T> {
    const { pool, tasks, outbox } = this.options;
    await Promise.all([tasks.initialize(), outbox.initialize()]);
    return inTransaction(pool, (client) =>
      fn({
        tasks: tasks.onClient(client),
        outbox: {
          append: async (input) => {
            await outbox.append(input, { client });
          },
        },
      }),
    );
  }
}
