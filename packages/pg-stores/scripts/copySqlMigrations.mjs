// tsup bundles the TypeScript into dist/; the numbered .sql migrations are read at run time, so the
// build copies them to dist/migrations, where the bundled migrator looks (see src/migrations/sqlMigrations.ts).
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";

const from = "src/migrations";
const to = "dist/migrations";
mkdirSync(to, { recursive: true });
for (const file of readdirSync(from).filter((name) => name.endsWith(".sql"))) copyFileSync(`${from}/${file}`, `${to}/${file}`);
