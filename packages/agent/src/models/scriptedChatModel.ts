import { setTimeout as sleep } from "node:timers/promises";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { concat } from "@langchain/core/utils/stream";
import { ASK_HUMAN_TOOL } from "../tools/askHuman";
import { TASK_TOOL } from "../tasks/taskToolName";
import { parseDirective } from "./scriptedDirectives";

type ScriptedReply = { text: string; wordDelayMs?: number } | { toolCall: { name: string; args: Record<string, unknown> } };

/**
 * The built-in deterministic model (provider `"scripted"`). It answers `echo: <text>` to the last
 * user message, streamed word by word, and follows the directives of `parseDirective`; after a tool
 * result it reports `<tool> returned: <result>`. No network, no randomness: runs, tools and
 * interrupts are testable end to end.
 */
export class ScriptedChatModel extends BaseChatModel {
  constructor(fields: BaseChatModelParams = {}) {
    super(fields);
  }

  override _llmType(): string {
    return "scripted";
  }

  // The script, not the tool list, decides which tool to call, so binding changes nothing.
  override bindTools(_tools: BindToolsInput[]): this {
    return this;
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const reply = await this.reply(messages, options.signal);
    if ("toolCall" in reply) {
      const { name, args } = reply.toolCall;
      // Deterministic ids keep checkpoints and chunk streams reproducible.
      const id = `call_${messages.length}`;
      yield new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({
          content: "",
          tool_call_chunks: [{ type: "tool_call_chunk", id, name, args: JSON.stringify(args), index: 0 }],
        }),
      });
      return;
    }
    for (const [i, token] of (reply.text.match(/\s*\S+/g) ?? [reply.text]).entries()) {
      if (i > 0 && reply.wordDelayMs) await sleep(reply.wordDelayMs, undefined, { signal: options.signal });
      options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
      yield chunk;
      await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
    }
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    let whole: ChatGenerationChunk | undefined;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      whole = whole ? concat(whole, chunk) : chunk;
    }
    return { generations: whole ? [whole] : [] };
  }

  private async reply(messages: BaseMessage[], signal: AbortSignal | undefined): Promise<ScriptedReply> {
    const last = messages.at(-1);
    if (!last) return { text: "echo:" };
    if (ToolMessage.isInstance(last)) return { text: `${last.name ?? "tool"} returned: ${last.text}` };
    const text = last.text;
    const directive = parseDirective(text);
    switch (directive.kind) {
      case "tool":
        return { toolCall: { name: directive.name, args: directive.args } };
      case "interrupt":
        return { toolCall: { name: ASK_HUMAN_TOOL, args: { question: directive.question } } };
      case "task":
        return { toolCall: { name: TASK_TOOL, args: { assistant: directive.assistant, description: directive.description } } };
      case "fail":
        throw new Error(directive.reason);
      case "sleep":
        await sleep(directive.ms, undefined, { signal });
        return { text: `echo: ${text}` };
      case "drip":
        return { text: `echo: ${text}`, wordDelayMs: directive.ms };
      default:
        return { text: `echo: ${text}` };
    }
  }
}
