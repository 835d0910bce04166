import type { LightMyRequestResponse } from "fastify";

/** The events of a LangGraph stream: `event: <name>` lines, as the SDK reads them. */
export function sseEvents(response: LightMyRequestResponse): Array<{ event: string; id?: string; data: unknown }> {
  return response.body
    .split("\n\n")
    .filter((block) => block.includes("event: "))
    .map((block) => {
      const field = (name: string) => block.split("\n").find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
      return { event: field("event")!, id: field("id"), data: JSON.parse(field("data") ?? "null") };
    });
}
