import { REPLICA_ROLES, type ReplicaAnnouncement } from "@axiom-lattice/protocols";
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

/** More versions than any rotation keeps at once. */
const MAX_KEY_VERSIONS = 64;

const announcementSchema = z.object(
  {
    replicaId: rules.text,
    version: rules.text,
    startedAt: rules.date,
    storeMode: z.enum(["memory", "postgresql"], { error: 'must be "memory" or "postgresql"' }),
    role: z.enum(REPLICA_ROLES, { error: `must be one of ${REPLICA_ROLES.join(", ")}` }),
    activeRuns: rules.integer(0),
    outboxCursor: rules.text.nullable(),
    outboxLagMs: rules.integer(0),
    keyVersions: z
      .array(rules.text, { error: `must be an array of at most ${MAX_KEY_VERSIONS} key versions` })
      .max(MAX_KEY_VERSIONS, `must be an array of at most ${MAX_KEY_VERSIONS} key versions`)
      .optional(),
  },
  { error: "must be an object" },
);

/** Checks what `ReplicaPresenceStore.announce` takes; throws `StoreArgumentError`, so nothing is written. */
export function validateAnnouncement(announcement: unknown, ttlMs: unknown): ReplicaAnnouncement {
  const valid = definedFields(parseStoreArgument(announcementSchema, announcement, "announcement"));
  parseStoreArgument(rules.positiveNumber, ttlMs, "ttlMs");
  return valid;
}
