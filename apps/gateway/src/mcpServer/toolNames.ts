import { createHash } from "node:crypto";
import type { Assistant } from "@axiom-lattice/protocols";

/**
 * The longest tool name handed out. MCP allows 128 characters of `A-Z a-z 0-9 _ - .`, but the model
 * APIs its clients pass tools on to accept less (OpenAI's and Anthropic's: 64 of `A-Z a-z 0-9 _ -`);
 * a name within both works wherever the tool goes next.
 */
export const MAX_TOOL_NAME_LENGTH = 64;

/** The suffix that makes a name unique: hex of the assistant id's SHA-256 (40 bits; a tenant never has enough assistants to meet a collision). */
const ID_HASH_LENGTH = 10;
const SLUG_LENGTH = MAX_TOOL_NAME_LENGTH - ID_HASH_LENGTH - 1;

/**
 * The tool an assistant is, by name: its own name made safe (every run of other characters becomes
 * one `_`), then a hash of its id. The name says what the tool is to a model choosing among tools; the
 * hash keeps two assistants of one name apart and keeps each name the same for as long as the
 * assistant is not renamed, whatever else is created or deleted.
 */
export function toolNameOf(assistant: Pick<Assistant, "id" | "name">): string {
  // No dash or underscore at either end: some clients take a leading dash for an option.
  const slug = assistant.name
    .replace(/[^A-Za-z0-9-]+/g, "_")
    .replace(/^[_-]+|[_-]+$/g, "")
    .slice(0, SLUG_LENGTH)
    .replace(/[_-]+$/, "");
  const hash = createHash("sha256").update(assistant.id).digest("hex").slice(0, ID_HASH_LENGTH);
  return slug ? `${slug}_${hash}` : `assistant_${hash}`;
}
