import type { ErrorCode } from "@axiom-lattice/protocols";

/**
 * An update would send a stored secret to a new destination (another URL, API or command) without
 * the client giving it again. Write-only secrets never follow a new destination: otherwise whoever
 * may change the destination could read a secret by pointing it at a server of their own.
 */
export class SecretsRequiredError extends Error {
  readonly code = "SECRETS_REQUIRED" satisfies ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "SecretsRequiredError";
  }
}
