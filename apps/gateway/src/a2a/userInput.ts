import { type Message, Role } from "@a2a-js/sdk";
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";
import { idSchema } from "../http/ids";

/** The longest text a message may carry, as `/api/runs` takes it. */
export const MAX_INPUT_CHARS = 100_000;

/**
 * What a user's A2A message says, as the text the assistant is sent: its text parts, and its data
 * parts as JSON, one per line. Files (raw bytes or URLs) are refused: no assistant reads them. A
 * message that is not the user's, says nothing, or says too much is refused before anything is queued.
 */
export function userInput(message: Message | undefined): string {
  if (!message) throw new RequestMalformedError("params.message is required");
  if (message.role !== Role.ROLE_USER && message.role !== Role.ROLE_UNSPECIFIED) throw new RequestMalformedError("params.message.role must be the user's");
  const lines = message.parts.map((part, index) => {
    switch (part.content?.$case) {
      case "text":
        return part.content.value;
      case "data":
        return JSON.stringify(part.content.value);
      case "raw":
      case "url":
        throw new ContentTypeNotSupportedError(`params.message.parts[${index}]: files are not supported; send text or data parts`);
      default:
        throw new RequestMalformedError(`params.message.parts[${index}] has no content`);
    }
  });
  const text = lines.join("\n");
  if (text.trim() === "") throw new RequestMalformedError("params.message has no text: send at least one non-empty text or data part");
  if (text.length > MAX_INPUT_CHARS) throw new RequestMalformedError(`params.message is ${text.length} characters long; at most ${MAX_INPUT_CHARS} are taken`);
  return text;
}

/** A context or task id a client names, checked as every id the gateway stores (`undefined` for none). */
export function clientId(field: string, value: string): string | undefined {
  if (value === "") return undefined;
  if (!idSchema.safeParse(value).success) throw new RequestMalformedError(`${field} must be 1-128 characters of A-Z a-z 0-9 . _ -`);
  return value;
}
