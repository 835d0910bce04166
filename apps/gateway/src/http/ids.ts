import { z } from "zod";

/** Ids of assistants, threads and messages: bounded, and safe inside SSE ids and lease keys. */
export const idSchema = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 . _ -");

export const idParams = z.object({ id: idSchema });

/** A `204` answer: no body. */
export const noContent = z.undefined().describe("No content");
