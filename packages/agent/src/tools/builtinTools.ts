import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** `clock`: the current time as an ISO 8601 string. */
export const clockTool = tool(() => new Date().toISOString(), {
  name: "clock",
  description: "Returns the current time as an ISO 8601 string.",
  schema: z.object({}),
});

/** `echo`: returns the given text unchanged. */
export const echoTool = tool(({ text }) => text, {
  name: "echo",
  description: "Returns the given text unchanged.",
  schema: z.object({ text: z.string() }),
});
