/**
 * Statements per request on PostgreSQL: counts the driver's queries (BEGIN and COMMIT included) that the services
 * behind GET /v1/tools?limit=100, API-key authentication, GET /v1/identity/whoami and POST /v1/tools issue, cold
 * (first call, or with the caches cleared) and warm.
 * The route wrapper adds none of its own without an Idempotency-Key.
 *
 * Run: npx tsx bench/api-statements.ts   (PostgreSQL at $DATABASE_URL or the local default; a fresh database is
 * created for the run and dropped at the end)
 */
import pg from "pg";
import { DEFAULT_PG_URL } from "./common";
import { freshPostgresDatabase } from "../tests/helpers/server";

let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  statements += 1;

  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

async function counted(label: string, run: () => Promise<unknown>, times = 1) {
  const before = statements;
  for (let i = 0; i < times; i++) await run();
  // Statements sent off the request's path (a coalesced lastUsedAt write) are counted too.
  await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(`${label.padEnd(52)} ${((statements - before) / times).toFixed(1)}`);
}

async function main() {
  const database = await freshPostgresDatabase(process.env.DATABASE_URL || DEFAULT_PG_URL);
  try {
    process.env.DATABASE_URL = database.url;
    const { runMigrations } = await import("../lib/db/migrate.mjs");
    await runMigrations({ command: "deploy", databaseUrl: database.url });
    const { createTenant } = await import("../lib/services/create-tenant");
    const { authenticateApiKey } = await import("../lib/services/authenticate");
    const { listTools, registerTool } = await import("../lib/services/tools");
    const { whoami } = await import("../lib/services/tokens");
    const { clearCaches } = await import("../lib/services/tenant-generation");
    const created = await createTenant({ name: "statements" });
    const key = created.apiKey.key;
    const actor = await authenticateApiKey(key);
    let n = 0;
    const manifest = () => ({
      projectId: created.project.id,
      id: `bench.statements-${++n}`,
      description: "Looks up a word.",
      version: "1.0.0",
      input: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
      output: { type: "object", properties: { definition: { type: "string" } } },
      mutating: false,
      effects: [{ kind: "reads", resource: "dictionary" }],
      spec: { kind: "http", method: "GET", urlTemplate: "https://dictionary.example/define?word={word}" },
    });
    for (let i = 0; i < 110; i++) await registerTool(actor, manifest());
    console.log("statements per call (driver queries, BEGIN/COMMIT included)");
    await counted("auth: API key -> actor (cold: caches cleared)", () => (clearCaches(), authenticateApiKey(key)));
    await counted("auth: API key -> actor (warm, mean of 20)", () => authenticateApiKey(key), 20);
    await counted("whoami service (caches cleared, mean of 20)", () => (clearCaches(), whoami(actor)), 20);
    await counted("whoami service (warm, mean of 20)", () => whoami(actor), 20);
    await counted("GET /v1/tools?limit=100 service (first)", () => listTools(actor, {}, { limit: 100 }));
    await counted("GET /v1/tools?limit=100 service (mean of 20)", () => listTools(actor, {}, { limit: 100 }), 20);
    await counted("POST /v1/tools service (new tool, mean of 20)", () => registerTool(actor, manifest()), 20);
    await counted("POST /v1/tools service (new version, mean of 20)", async () => registerTool(actor, { ...manifest(), id: "bench.statements-1", version: `1.0.${++n}` }), 20);
  } finally {
    const { getDb } = await import("../lib/db");
    await (await getDb()).$disconnect().catch(() => {});
    await database.drop();
  }
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
