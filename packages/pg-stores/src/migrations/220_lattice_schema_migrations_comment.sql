-- The first migration kept as a plain .sql file: it only describes the ledger, and proves that .sql
-- migrations ship in the package and are applied in order like the TypeScript ones before them.
COMMENT ON TABLE lattice_schema_migrations IS
  'Applied schema migrations of @axiom-lattice/pg-stores: TypeScript modules first, numbered .sql files from 220 on';
