import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { typeSchemasInWorker } from "../src/graphs/typeSchemasInWorker";
import { useGateway } from "./support";

// A deployed graph whose state is an `Annotation` has its schemas only as TypeScript types: the
// gateway reads them from the graph's source (in a worker thread, once), as the platform does.
const deployment = join(__dirname, "fixtures/deployment");
const gateway = useGateway(async () => {}, () => ({ AXIOM_LANGGRAPH_CONFIG: join(deployment, "langgraph.json") }));
const tenant = { "x-tenant-id": "deployed-schemas" };
const draft07 = "http://json-schema.org/draft-07/schema#";
const baseMessageRef = "#/definitions/BaseMessage<MessageStructure<MessageToolSet>,MessageType>";

describe("schemas of deployed graphs from their TypeScript types", () => {
  // The first extraction type-checks LangChain's types: seconds, more on a busy machine.
  it("answers an Annotation graph's state, input, output, config and context schemas", { timeout: 120_000 }, async () => {
    const schemas = (await gateway.get("/assistants/annotated/schemas", tenant)).json();
    const state = {
      type: "object",
      properties: {
        messages: { type: "array", items: { $ref: baseMessageRef } },
        notes: { type: "array", items: { type: "string" } },
        topic: { type: ["null", "string"] },
      },
      $schema: draft07,
    };
    expect(schemas).toMatchObject({ graph_id: "annotated", state_schema: state, input_schema: state, output_schema: state });
    expect(schemas.state_schema.definitions[baseMessageRef.slice("#/definitions/".length)]).toMatchObject({ description: expect.stringContaining("Base class for all types of messages") });
    const config = { type: "object", properties: { tone: { type: "string", enum: ["plain", "warm"] } }, $schema: draft07 };
    expect(schemas.config_schema).toEqual(config);
    expect(schemas.context_schema).toEqual(config);
  });

  it("answers its subgraphs' schemas by namespace", { timeout: 120_000 }, async () => {
    const subgraphs = (await gateway.get("/assistants/annotated/subgraphs?recurse=true", tenant)).json();
    expect(Object.keys(subgraphs)).toEqual(["review"]);
    const state = { type: "object", properties: { notes: { type: "array", items: { type: "string" } }, verdict: { type: "string", enum: ["approved", "rejected"] } } };
    // Named as the JS server names them, and as the SDK's type does.
    expect(subgraphs.review).toMatchObject({ state, state_schema: state, input: state, output: state });
  });

  it("reads a factory's schemas from the graph it returns", { timeout: 120_000 }, async () => {
    const schemas = (await gateway.get("/assistants/made/schemas", tenant)).json();
    expect(schemas.state_schema).toMatchObject({ properties: { count: { type: "number" }, trail: { type: "array" }, approved: { type: ["null", "string"] } } });
  });

  it("stops an extraction that outlasts its time, and says so", async () => {
    await expect(typeSchemasInWorker({ file: join(deployment, "annotated.mts"), exportName: "graph" }, 1)).rejects.toThrow(/took more than 1 ms/);
  });
});
