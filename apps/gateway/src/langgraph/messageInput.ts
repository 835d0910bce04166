import { coerceMessageLikeToMessage } from "@langchain/core/messages";
import { HttpError } from "../http/errors";

/**
 * Refuses, before anything is written, messages LangChain cannot read (the runtime reads them with
 * the same function): strings, `{ role, content }`, `{ type, content, id }` and the like pass.
 */
export function checkMessages(messages: unknown[]): void {
  messages.forEach((message, index) => {
    try {
      coerceMessageLikeToMessage(message as Parameters<typeof coerceMessageLikeToMessage>[0]);
    } catch (error) {
      throw new HttpError("INVALID_REQUEST", `Invalid message ${index}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
