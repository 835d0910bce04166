import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIST_ASSISTANTS } from "../src/assistants/assistantSql";
import { LIST_MCP_SERVER_CONFIGS } from "../src/mcp/mcpServerConfigSql";
import { runMigrations } from "../src/migrations/migrator";
import { LIST_MODEL_PROVIDERS } from "../src/modelProviders/modelProviderSql";
import { LIST_BOTS, LIST_PROJECTS } from "../src/projects/projectSql";
import { LIST_ROOMS } from "../src/rooms/roomSql";
import { LIST_TASKS } from "../src/tasks/taskSql";

/** A page key's creation time, in epoch microseconds (a bigint parameter is passed as text). */
const AFTER = String(Date.UTC(2026, 0, 1) * 1_000);

/**
 * Each creation-ordered list, with the parameters of a page after a key, and the index whose scan
 * should start at that key: the `(created_at, id)` row comparison must be an index condition, not a
 * filter applied to every earlier row.
 */
const PAGE_QUERIES = [
  { list: "assistants", sql: LIST_ASSISTANTS, params: ["tenant", AFTER, "a", 11], index: "lattice_assistants_by_page_order" },
  { list: "model providers", sql: LIST_MODEL_PROVIDERS, params: ["tenant", AFTER, "a", 11], index: "lattice_model_providers_by_page_order" },
  { list: "MCP configs", sql: LIST_MCP_SERVER_CONFIGS, params: ["tenant", AFTER, "a", 11], index: "lattice_mcp_server_configs_by_page_order" },
  { list: "projects", sql: LIST_PROJECTS, params: ["tenant", AFTER, "a", 11], index: "lattice_projects_page" },
  { list: "a project's bots", sql: LIST_BOTS, params: ["tenant", "project", AFTER, "a", 11], index: "lattice_project_bots_page" },
  { list: "a project's rooms", sql: LIST_ROOMS, params: ["tenant", "project", AFTER, "a", 11], index: "lattice_project_rooms_page" },
  { list: "tasks", sql: LIST_TASKS, params: ["tenant", null, null, null, null, null, null, AFTER, "a", 11], index: "lattice_tasks_listing" },
];

describe("creation-ordered page queries", () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase("lattice_page_queries");
    pool = new Pool({ connectionString: database.url, max: 1 });
    await runMigrations(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it.each(PAGE_QUERIES)("start the scan of $list at the cursor in $index", async ({ sql, params, index }) => {
    const client = await pool.connect();
    try {
      // Empty tables: without this the planner would read them whole, whatever the query allows.
      await client.query("SET enable_seqscan = off");
      const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${sql}`, params)).rows.map((row) => row["QUERY PLAN"]).join("\n");
      expect(plan).toMatch(new RegExp(`Index (Only )?Scan using ${index} on[^\\n]*\\n\\s*Index Cond: \\([^\\n]*ROW\\(created_at, `));
    } finally {
      await client.query("RESET enable_seqscan");
      client.release();
    }
  });
});
