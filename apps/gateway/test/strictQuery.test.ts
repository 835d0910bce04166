// Every /api route refuses a query parameter it does not know, as it refuses an unknown body field.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { apiRoutesOf } from "../src/auth/authentication";
import { installStrictApiQueries } from "../src/http/strictQuery";
import { useGateway } from "./support";

describe("query parameters on /api", () => {
  const gateway = useGateway();

  it("an unknown one is a 400 naming it, on every route that reads no body", async () => {
    const routes = apiRoutesOf(gateway.app).filter(({ method, url }) => url.startsWith("/api/") && (method === "GET" || method === "DELETE"));
    expect(routes.length).toBeGreaterThan(30);
    for (const { method, url } of routes) {
      const path = url.replace(/:[A-Za-z_]+/g, "x");
      const response = await gateway.app.inject({ method: method as "GET", url: `${path}?no_such_option=1` });
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(400);
      expect(response.json(), `${method} ${url}`).toMatchObject({ code: "INVALID_REQUEST", error: 'Invalid query: Unrecognized key: "no_such_option"' });
    }
  });

  it("an old client's option is refused rather than ignored: a room's ?after= and ?offset= on registries", async () => {
    for (const url of ["/api/projects/p/rooms/r/messages?after=1", "/api/assistants?offset=10", "/api/model-providers?offset=10", "/api/projects?offset=10"]) {
      const response = await gateway.get(url);
      expect(response.statusCode, url).toBe(400);
    }
  });

  it("known ones still work, and a body route refuses an unknown one with a valid body", async () => {
    expect((await gateway.get("/api/assistants?limit=1")).statusCode).toBe(200);
    const response = await gateway.post("/api/threads?no_such_option=1", {});
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "INVALID_REQUEST" });
  });

  it("a route declaring a query that is not strict is refused when it is registered", async () => {
    const app = Fastify();
    installStrictApiQueries(app);
    expect(() => app.get("/api/loose", { schema: { querystring: z.object({ limit: z.string() }) } }, async () => ({}))).toThrow(/must be a z.strictObject/);
    await app.close();
  });
});
