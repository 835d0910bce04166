/** One schema change. Released migrations are never edited: a change is a new version. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
