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

/** The ReAct graph's input, state update or command update: `{ messages }` alone, in forms LangChain reads. */
export function checkReactMessages(field: string, value: Record<string, unknown>): void {
  if (!Array.isArray(value.messages) || Object.keys(value).some((key) => key !== "messages")) {
    throw new HttpError("INVALID_REQUEST", `${field}: the ReAct graph takes { messages }: the messages to add`);
  }
  checkMessages(value.messages);
}
