import { SecretDecryptionError, type SecretKeyring } from "@axiom-lattice/core";
import type { Pool } from "pg";
import {
  PAGE_A2A_PUSH_SECRETS,
  PAGE_ASSISTANT_KEYS,
  PAGE_ASSISTANT_VERSION_KEYS,
  PAGE_MCP_SECRETS,
  PAGE_PROVIDER_KEYS,
  PAGE_WEB_APP_SECRETS,
  RESEAL_A2A_PUSH_SECRET,
  RESEAL_ASSISTANT_KEY,
  RESEAL_ASSISTANT_VERSION_KEY,
  RESEAL_MCP_SECRET,
  RESEAL_PROVIDER_KEY,
  RESEAL_WEB_APP_SECRET,
} from "./storedSecretSql";

/** The kinds of stored secret, as counted in a {@link ResealSummary}. */
export type StoredSecretKind = "providerKeys" | "assistantKeys" | "mcpHeaders" | "mcpEnv" | "webAppSecrets" | "a2aPushSecrets";

export interface ResealCount {
  /** Values written again, sealed under the current key. */
  resealed: number;
  /** Values a concurrent write (or another replica's reseal) changed between read and update: left as written. */
  changedMeanwhile: number;
}

/** A stored value the keyring cannot open; names where it is, never what it is. */
export interface UnreadableSecret {
  table: string;
  tenantId: string;
  id: string;
  /** Where the value sits in its row (`headers.Authorization`), empty for a column of its own. */
  field: string;
  reason: string;
}

export interface ResealSummary {
  keyVersion: string;
  kinds: Record<StoredSecretKind, ResealCount>;
  unreadable: UnreadableSecret[];
}

/** Some stored values could not be opened; every other one was resealed. */
export class UnreadableSecretsError extends Error {
  constructor(readonly summary: ResealSummary) {
    const where = summary.unreadable.map((secret) => `${secret.table} ${secret.tenantId}/${secret.id}${secret.field ? ` ${secret.field}` : ""}`);
    super(`${summary.unreadable.length} stored secret(s) cannot be opened with LATTICE_ENCRYPTION_KEY (${where.join(", ")}); add the key version that sealed them`);
    this.name = "UnreadableSecretsError";
  }
}

export interface ResealStoredSecretsOptions {
  keyring: SecretKeyring;
  /**
   * `plainText` seals only values stored in plain text and never opens a sealed one (what startup
   * runs); `all` also moves values sealed under an older key version to the current one (rotation).
   */
  scope: "plainText" | "all";
  /** Values read per query (default 500). */
  pageSize?: number;
}

interface StoredSecretRow {
  tenant_id: string;
  id: string;
  path: string[];
  value: string;
}

interface SecretTable {
  table: string;
  page: string;
  reseal: string;
  kindOf(path: string[]): StoredSecretKind;
}

const TABLES: readonly SecretTable[] = [
  { table: "lattice_model_providers", page: PAGE_PROVIDER_KEYS, reseal: RESEAL_PROVIDER_KEY, kindOf: () => "providerKeys" },
  { table: "lattice_assistants", page: PAGE_ASSISTANT_KEYS, reseal: RESEAL_ASSISTANT_KEY, kindOf: () => "assistantKeys" },
  { table: "lattice_assistant_versions", page: PAGE_ASSISTANT_VERSION_KEYS, reseal: RESEAL_ASSISTANT_VERSION_KEY, kindOf: () => "assistantKeys" },
  { table: "lattice_mcp_server_configs", page: PAGE_MCP_SECRETS, reseal: RESEAL_MCP_SECRET, kindOf: (path) => (path[0] === "headers" ? "mcpHeaders" : "mcpEnv") },
  { table: "lattice_web_apps", page: PAGE_WEB_APP_SECRETS, reseal: RESEAL_WEB_APP_SECRET, kindOf: () => "webAppSecrets" },
  { table: "lattice_a2a_push_configs", page: PAGE_A2A_PUSH_SECRETS, reseal: RESEAL_A2A_PUSH_SECRET, kindOf: () => "a2aPushSecrets" },
];

/**
 * Walks every stored secret of every tenant, page by page, and reseals each value the scope selects
 * with a compare-and-set update: replicas running it together, or a write landing between the read
 * and the update, lose nothing. A value that cannot be opened is reported and skipped; the walk
 * finishes, then throws {@link UnreadableSecretsError} carrying the summary.
 */
export async function resealStoredSecrets(pool: Pool, options: ResealStoredSecretsOptions): Promise<ResealSummary> {
  const { keyring, pageSize = 500 } = options;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError("pageSize must be a positive integer");
  // Values starting with this are left alone: any sealed value, or only those under the current key.
  const keep = options.scope === "plainText" ? "enc:" : `enc:${keyring.currentVersion}:`;
  const count = (): ResealCount => ({ resealed: 0, changedMeanwhile: 0 });
  const summary: ResealSummary = {
    keyVersion: keyring.currentVersion,
    kinds: { providerKeys: count(), assistantKeys: count(), mcpHeaders: count(), mcpEnv: count(), webAppSecrets: count(), a2aPushSecrets: count() },
    unreadable: [],
  };
  for (const { table, page, reseal, kindOf } of TABLES) {
    let cursor: unknown[] = ["", "", []];
    for (;;) {
      const { rows } = await pool.query<StoredSecretRow>(page, [...cursor, keep, pageSize]);
      for (const row of rows) {
        let next: string;
        try {
          next = keyring.reseal(row.value);
        } catch (error) {
          if (!(error instanceof SecretDecryptionError)) throw error;
          summary.unreadable.push({ table, tenantId: row.tenant_id, id: row.id, field: row.path.join("."), reason: error.message });
          continue;
        }
        const params = [row.tenant_id, row.id, row.value, next, ...(row.path.length > 0 ? [row.path] : [])];
        const { rowCount } = await pool.query(reseal, params);
        summary.kinds[kindOf(row.path)][rowCount === 1 ? "resealed" : "changedMeanwhile"] += 1;
      }
      if (rows.length < pageSize) break;
      const last = rows[rows.length - 1];
      cursor = [last.tenant_id, last.id, last.path];
    }
  }
  if (summary.unreadable.length > 0) throw new UnreadableSecretsError(summary);
  return summary;
}
