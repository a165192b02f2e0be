import path from "node:path";

/** Which database this process uses: PostgreSQL when DATABASE_URL is set, else embedded PGlite. */
export type DatabaseConfig =
  | { kind: "postgresql"; url: string }
  | { kind: "pglite"; dataDir: string };

export function databaseConfig(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  if (env.DATABASE_URL) return { kind: "postgresql", url: env.DATABASE_URL };
  return { kind: "pglite", dataDir: path.resolve(/*turbopackIgnore: true*/ env.KINDGI_DATA_DIR ?? "./data/pgdata") };
}
