// Walking an /api list over HTTP as a client does, checking the page shape every list shares.
import type { LightMyRequestResponse } from "fastify";
import { expect } from "vitest";

type Get = (url: string) => Promise<LightMyRequestResponse>;

/** The keys of `body` (not of free-form values inside it) that are not snake_case. */
export const camelKeys = (body: object): string[] => Object.keys(body).filter((key) => /[A-Z]/.test(key));

/**
 * Every item of the list at `url` (which may carry filters), read `limit` at a time through
 * `next_cursor`: each page is `{ <name>, next_cursor, has_more }`, no fuller than `limit`, and
 * `has_more` says whether a cursor follows.
 */
export async function walkList<T>(get: Get, url: string, name: string, limit: number): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = url.includes("?") ? "&" : "?";
    const response = await get(`${url}${separator}limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json<Record<string, unknown> & { next_cursor: string | null; has_more: boolean }>();
    expect(Object.keys(page).sort()).toEqual(["has_more", name, "next_cursor"].sort());
    const pageItems = page[name] as T[];
    expect(pageItems.length).toBeLessThanOrEqual(limit);
    expect(page.has_more).toBe(page.next_cursor !== null);
    items.push(...pageItems);
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor !== null);
  return { items, pages };
}

/** A list at `url` refuses a cursor no page answered, and a limit out of bounds, with 400. */
export async function expectBadPagesRefused(get: Get, url: string): Promise<void> {
  const separator = url.includes("?") ? "&" : "?";
  for (const cursor of ["garbage", Buffer.from(JSON.stringify(["x", 1, "y"])).toString("base64url")]) {
    const response = await get(`${url}${separator}cursor=${cursor}`);
    expect(response.statusCode, cursor).toBe(400);
    expect(response.json()).toMatchObject({ code: "INVALID_CURSOR", error: expect.any(String) });
  }
  for (const limit of ["0", "1001", "abc"]) {
    const response = await get(`${url}${separator}limit=${limit}`);
    expect(response.statusCode, limit).toBe(400);
    expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
  }
}
