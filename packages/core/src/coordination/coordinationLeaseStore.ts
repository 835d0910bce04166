import type { LeaseStore } from "@axiom-lattice/protocols";

let configured: LeaseStore | undefined;

/** Installs the process-wide store for cross-replica critical sections (`undefined` uninstalls). */
export function configureCoordinationLeaseStore(store: LeaseStore | undefined): void {
  configured = store;
}

/** The configured coordination store; `undefined` means a single process: run critical sections directly. */
export function getCoordinationLeaseStore(): LeaseStore | undefined {
  return configured;
}
