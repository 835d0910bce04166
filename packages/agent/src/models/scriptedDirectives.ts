import type { ErrorCode } from "@axiom-lattice/protocols";

/**
 * What the scripted model is told to do by the user's text. A directive is the first word of the
 * message; any other text is simply echoed.
 */
export type ScriptedDirective =
  | { kind: "echo" }
  | { kind: "tool"; name: string; args: Record<string, unknown> }
  | { kind: "sleep"; ms: number }
  | { kind: "drip"; ms: number }
  | { kind: "interrupt"; question: string }
  | { kind: "task"; assistant: string; description: string }
  | { kind: "fail"; reason: string };

/** A directive the scripted model cannot follow; the run fails with this message. */
export class ScriptedDirectiveError extends Error {
  readonly code = "INVALID_DIRECTIVE" satisfies ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = "ScriptedDirectiveError";
  }
}

/**
 * Parses `/tool <name> <json-args>`, `/sleep <ms>`, `/drip <ms> <text>` (the echo streamed one word
 * every `ms`), `/interrupt <question>`, `/task <assistant> <text>` and `/fail <reason>`.
 * Unknown `/words` are echoed like plain text, so a user may still type a slash.
 */
export function parseDirective(text: string): ScriptedDirective {
  const match = /^\/(tool|sleep|drip|interrupt|task|fail)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return { kind: "echo" };
  const rest = (match[2] ?? "").trim();
  switch (match[1]) {
    case "tool":
      return parseToolDirective(rest);
    case "sleep":
      return { kind: "sleep", ms: milliseconds("sleep", rest) };
    case "drip":
      return { kind: "drip", ms: milliseconds("drip", rest.split(/\s+/)[0]) };
    case "interrupt":
      if (!rest) throw new ScriptedDirectiveError("/interrupt expects a question");
      return { kind: "interrupt", question: rest };
    case "task": {
      const [, assistant, description] = /^(\S+)\s+([\s\S]+)$/.exec(rest) ?? [];
      if (!assistant || !description) throw new ScriptedDirectiveError("/task expects an assistant id and the task's text");
      return { kind: "task", assistant, description };
    }
    default:
      return { kind: "fail", reason: rest || "failed on request" };
  }
}

function milliseconds(directive: string, text: string): number {
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 0) throw new ScriptedDirectiveError(`/${directive} expects a whole number of milliseconds, got "${text}"`);
  return ms;
}

function parseToolDirective(rest: string): ScriptedDirective {
  const [, name, json] = /^(\S+)\s*([\s\S]*)$/.exec(rest) ?? [];
  if (!name) throw new ScriptedDirectiveError("/tool expects a tool name");
  let args: unknown;
  try {
    args = json ? JSON.parse(json) : {};
  } catch {
    throw new ScriptedDirectiveError(`/tool ${name} expects JSON arguments, got "${json}"`);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new ScriptedDirectiveError(`/tool ${name} expects a JSON object of arguments`);
  }
  return { kind: "tool", name, args: args as Record<string, unknown> };
}
