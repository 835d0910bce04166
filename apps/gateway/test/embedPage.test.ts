// The embed page and host script, as a browser fetches them: the page may be framed only by the web
// app's allowed origins, and the script loads from any origin.
import { describe, expect, it } from "vitest";
import { useGateway } from "./support";

describe("the web-app embed", () => {
  const gateway = useGateway(async ({ post }) => {
    expect((await post("/api/assistants", { id: "helper", name: "Helper" })).statusCode).toBe(201);
  });
  const patch = (url: string, payload: unknown) => gateway.app.inject({ method: "PATCH", url, headers: { "content-type": "application/json" }, payload: JSON.stringify(payload) });

  const create = async (allowedOrigins: string[]) => {
    const created = await gateway.post("/api/web-apps", { assistant_id: "helper", name: "Embedded", status: "published", allowed_origins: allowedOrigins });
    expect(created.statusCode).toBe(201);
    return (created.json() as { id: string }).id;
  };

  it("serves the page framable by the allowed origins only, with its assets", async () => {
    const id = await create(["https://shop.example.test", "http://localhost:5173"]);
    const page = await gateway.get(`/embed/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toContain("frame-ancestors https://shop.example.test http://localhost:5173;");
    expect(page.headers["x-frame-options"]).toBeUndefined();
    const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(asset).toBeDefined();
    const script = await gateway.get(`/embed/${asset}`);
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain("axiom-web-app-embed");
  });

  it("lets nobody frame a web app that allows no origin, and serves no page for a missing or disabled one", async () => {
    const id = await create([]);
    expect((await gateway.get(`/embed/${id}`)).headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect((await gateway.get("/embed/webapp-missing")).statusCode).toBe(404);
    expect((await patch(`/api/web-apps/${id}`, { status: "disabled" })).statusCode).toBe(200);
    expect((await gateway.get(`/embed/${id}`)).statusCode).toBe(403);
  });

  it("serves the host script as a classic script any origin may load", async () => {
    const script = await gateway.get("/embed.js");
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toMatch(/^application\/javascript/);
    expect(script.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(script.body).toContain("AxiomEmbed");
    expect(script.body).not.toMatch(/^\s*(import|export)\s/m);
  });
});
