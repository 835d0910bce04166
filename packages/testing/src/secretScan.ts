import { Client } from "pg";

/**
 * Every `table.column` of the database's public tables whose value contains `needle`: text, varchar,
 * json, jsonb, arrays and bytes alike. For proving that no secret is stored in the clear.
 */
export async function columnsContaining(databaseUrl: string, needle: string): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT c.table_name, c.column_name, c.data_type
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
          AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY', 'bytea')
        ORDER BY c.table_name, c.column_name`,
    );
    const hits: string[] = [];
    for (const { table_name: table, column_name: column, data_type: type } of columns) {
      // Names come from the catalog, quoted; the needle is a parameter.
      const asText = type === "bytea" ? `encode("${column}", 'escape')` : `"${column}"::text`;
      const { rows } = await client.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM "${table}" WHERE strpos(${asText}, $1) > 0) AS found`, [needle]);
      if (rows[0].found) hits.push(`${table}.${column}`);
    }
    return hits;
  } finally {
    await client.end();
  }
}
