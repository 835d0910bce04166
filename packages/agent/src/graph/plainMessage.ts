import { AIMessage, AIMessageChunk, type BaseMessage, ToolMessage } from "@langchain/core/messages";

/** A checkpointed message as JSON clients read it (thread state, `wait` results). */
export interface PlainMessage {
  id?: string;
  /** `human`, `ai`, `tool` or `system`. */
  type: string;
  content: string;
  name?: string;
  toolCalls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
  toolCallId?: string;
}

export function toPlainMessage(message: BaseMessage): PlainMessage {
  const plain: PlainMessage = { id: message.id, type: message.type, content: message.text };
  if (message.name) plain.name = message.name;
  if ((AIMessage.isInstance(message) || AIMessageChunk.isInstance(message)) && message.tool_calls?.length) {
    plain.toolCalls = message.tool_calls.map(({ id, name, args }) => ({ id, name, args }));
  }
  if (ToolMessage.isInstance(message)) plain.toolCallId = message.tool_call_id;
  return plain;
}
