import type { Client, Message } from "@langchain/langgraph-sdk";
import { type ToolCallWithResult, type UseAgentStream, useStream } from "@langchain/langgraph-sdk/react";
import { type FormEvent, useState } from "react";
import { readLocation, writeLocation } from "./connection";
import { FailureView, describe } from "./failures";

interface ChatState extends Record<string, unknown> {
  messages: Message[];
}

/**
 * One conversation with an assistant, through the SDK's `useStream`: tokens as they stream, tool
 * calls with their results, the interrupt the thread waits on. The thread id lives in the page's
 * address and a running run in the tab's session storage (`reconnectOnMount`), so a reload shows the
 * conversation and rejoins a run still going.
 */
export function Chat({ client, assistantId }: { client: Client; assistantId: string }) {
  const [threadId, setThreadId] = useState<string | null>(() => readLocation().threadId ?? null);
  const stream = useStream<ChatState>({
    client,
    assistantId,
    threadId,
    onThreadId: (id) => {
      setThreadId(id);
      writeLocation({ threadId: id });
    },
    reconnectOnMount: true,
    // A listener here makes the hook read the thread again once a run ended; without one it keeps the
    // state it read when the page loaded, and with it an interrupt already answered.
    onFinish: () => undefined,
    // Typed as a ReAct agent's stream (with its tool calls): the gateway's graph is one, which the
    // hook cannot know from a state type alone.
  }) as UseAgentStream<ChatState>;
  const interrupt = stream.interrupts.find((each) => "value" in each);

  const send = (text: string) => {
    const message: Message = { id: crypto.randomUUID(), type: "human", content: text };
    void stream.submit({ messages: [message] }, { optimisticValues: (previous) => ({ ...previous, messages: [...(previous.messages ?? []), message] }) });
  };
  const answer = (text: string) => void stream.submit(null, { command: { resume: text } });
  const newThread = () => {
    setThreadId(null);
    writeLocation({ threadId: null });
  };

  return (
    <main className="chat">
      <div className="toolbar">
        <span className="thread">{threadId ? `thread ${threadId}` : "new thread"}</span>
        <span className="status" aria-live="polite">
          {stream.isThreadLoading ? "loading…" : stream.isLoading ? "streaming…" : ""}
        </span>
        <button type="button" onClick={newThread} disabled={stream.isLoading}>
          New thread
        </button>
      </div>
      <ol className="messages" aria-label="Conversation">
        {stream.messages.map((message, index) => (
          <MessageView key={message.id ?? index} message={message} toolCalls={stream.toolCalls.filter((each) => message.type === "ai" && each.aiMessage.id === message.id)} />
        ))}
      </ol>
      {interrupt && !stream.isLoading && <InterruptForm question={interrupt.value} onAnswer={answer} />}
      {stream.error != null && <FailureView failure={describe(stream.error)} />}
      <TextForm label="Message" placeholder="Message (the scripted model: /tool echo {&quot;text&quot;:&quot;hi&quot;}, /interrupt Sure?)" action="Send" onSubmit={send} disabled={stream.isLoading || interrupt !== undefined} />
      {/* The hook's stop drops the stream and cancels the run on the gateway (`…/runs/{run_id}/cancel`), by
          the run id it keeps in session storage for `reconnectOnMount` (a rejoined run's too). */}
      {stream.isLoading && (
        <button type="button" className="stop" onClick={() => void stream.stop()}>
          Stop
        </button>
      )}
    </main>
  );
}

function MessageView({ message, toolCalls }: { message: Message; toolCalls: ToolCallWithResult[] }) {
  // A tool's answer is shown with the call it answers.
  if (message.type === "tool") return null;
  const text = textOf(message.content);
  return (
    <li className={`message ${message.type}`} data-role={message.type}>
      {text && <p>{text}</p>}
      {toolCalls.map(({ id, call, result, state }) => (
        <div key={id} className={`tool-call ${state}`} aria-label={`Tool call ${call.name}`}>
          <code>
            {call.name}({JSON.stringify(call.args)})
          </code>
          <span className="result">{result ? `→ ${textOf(result.content)}` : state === "pending" ? "…" : ""}</span>
        </div>
      ))}
    </li>
  );
}

function InterruptForm({ question, onAnswer }: { question: unknown; onAnswer: (text: string) => void }) {
  return (
    <section className="interrupt" aria-label="Interrupt">
      <p>
        <strong>The assistant asks:</strong> {typeof question === "string" ? question : JSON.stringify(question)}
      </p>
      <TextForm label="Answer" placeholder="Your answer" action="Answer" onSubmit={onAnswer} />
    </section>
  );
}

function TextForm({ label, placeholder, action, onSubmit, disabled = false }: { label: string; placeholder: string; action: string; onSubmit: (text: string) => void; disabled?: boolean }) {
  const [text, setText] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    onSubmit(text);
    setText("");
  };
  return (
    <form className="composer" onSubmit={submit}>
      <input aria-label={label} placeholder={placeholder} value={text} onChange={(event) => setText(event.target.value)} />
      <button type="submit" disabled={disabled || !text.trim()}>
        {action}
      </button>
    </form>
  );
}

/** A message's content as text: a string, or the text of its content blocks. */
function textOf(content: Message["content"] | undefined): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((block) => ("text" in block && typeof block.text === "string" ? block.text : "")).join("");
}
