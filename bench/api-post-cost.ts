/**
 * Where one POST /v1/tools goes on the server, without HTTP: the route handler, the service behind it, the manifest's
 * validation, building the Request and reading its body, and one statement round trip on the same driver path the
 * service's write takes (`SELECT 1`), each called one at a time in this process with new manifests. The rows run in
 * alternating blocks (5 rounds of 500 calls after 1,000 warm-up calls each), so they see the same machine.
 *
 * Run: npx tsx bench/api-post-cost.ts   (PGlite in a fresh temp dir; with DATABASE_URL=… a fresh PostgreSQL database
 * on that server instead, dropped at the end)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchToolManifest, mean, runAlternatingBlocks, type BlockRow } from "./common";
import { freshPostgresDatabase } from "../tests/helpers/server";

const ROUNDS = 5;
const BLOCK = 500;
const WARMUP = 1000;

async function main() {
  const cleanups: (() => Promise<void> | void)[] = [];
  if (process.env.DATABASE_URL) {
    const database = await freshPostgresDatabase(process.env.DATABASE_URL);
    cleanups.push(database.drop);
    process.env.DATABASE_URL = database.url;
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-post-"));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    process.env.KINDGI_DATA_DIR = path.join(dir, "pgdata");
  }
  try {
    const { databaseConfig } = await import("../lib/db/config");
    const config = databaseConfig();
    const { runMigrations } = await import("../lib/db/migrate.mjs");
    await runMigrations({ command: "deploy", ...(config.kind === "postgresql" ? { databaseUrl: config.url } : { dataDir: config.dataDir }) });
    const { getDb, getRawQuery } = await import("../lib/db");
    cleanups.unshift(async () => {
      // Authentication's coalesced lastUsedAt write runs shortly after the last call: let it finish first.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await (await getDb()).$disconnect();
    });
    const { createTenant } = await import("../lib/services/create-tenant");
    const { authenticateApiKey } = await import("../lib/services/authenticate");
    const { registerTool } = await import("../lib/services/tools");
    const { validateToolManifest } = await import("../lib/tools/validate-manifest");
    const { POST } = await import("../app/v1/tools/route");
    const tenant = await createTenant({ name: "post-cost" });
    const actor = await authenticateApiKey(tenant.apiKey.key);
    const raw = await getRawQuery();

    let n = 0;
    const tag = Date.now().toString(36);
    // The manifest bench/api-throughput.ts registers, with a new id each call.
    const manifest = () => ({ ...benchToolManifest(`bench.tool-${tag}-${++n}`), projectId: tenant.project.id });
    const url = "http://127.0.0.1:3000/v1/tools";
    const headers = { authorization: `Bearer ${tenant.apiKey.key}`, host: "127.0.0.1:3000", "content-type": "application/json" };
    const context = { params: Promise.resolve({}) };
    const rows: BlockRow[] = [
      {
        label: "route handler (POST /v1/tools, new tool)",
        call: async () => {
          const response = await POST(new Request(url, { method: "POST", headers, body: JSON.stringify(manifest()) }), context);
          if (response.status !== 201) throw new Error(`POST /v1/tools answered ${response.status}: ${await response.text()}`);
          return response.text();
        },
        micros: [],
      },
      { label: "service registerTool (new tool)", call: () => registerTool(actor, manifest()), micros: [] },
      {
        label: "manifest validation",
        call: async () => {
          const { projectId: _projectId, ...document } = manifest();
          const result = validateToolManifest(document);
          if (!result.ok) throw new Error("the benchmark manifest is invalid");
        },
        micros: [],
      },
      { label: "Request built and its body read", call: () => new Request(url, { method: "POST", headers, body: JSON.stringify(manifest()) }).text(), micros: [] },
      // A named statement takes the same prepared path as the service's write.
      { label: "one statement round trip (SELECT 1, prepared)", call: () => raw("/* kindgi:bench select-one */ SELECT 1 AS one", []), micros: [] },
    ];

    await runAlternatingBlocks(rows, { rounds: ROUNDS, block: BLOCK, warmup: WARMUP });

    const machine = `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}`;
    console.log(`backend: ${config.kind === "postgresql" ? "PostgreSQL" : "PGlite (embedded)"}; ${machine}`);
    console.log(`one call at a time, ${ROUNDS} rounds of ${BLOCK} calls per row (after ${WARMUP} warm-up calls), rows in turn\n`);
    const route = mean(rows[0].micros);
    console.log(`${"row".padEnd(48)} ${"µs/call".padStart(8)} ${"of route".padStart(9)}   by round`);
    for (const row of rows) {
      const value = mean(row.micros);
      console.log(`${row.label.padEnd(48)} ${value.toFixed(1).padStart(8)} ${`${((100 * value) / route).toFixed(1)} %`.padStart(9)}   ${row.micros.map((m) => m.toFixed(0)).join(" ")}`);
    }
    const [, service, validation] = rows.map((row) => mean(row.micros));
    console.log(`\nservice minus validation (the write, its checks and its result): ${(service - validation).toFixed(1)} µs, ${((100 * (service - validation)) / route).toFixed(1)} % of the route`);
    console.log(`route minus service (the wrapper: auth, body, checks, response): ${(route - service).toFixed(1)} µs`);
  } finally {
    for (const cleanup of cleanups) await Promise.resolve(cleanup()).catch((error) => console.error(`cleanup failed: ${(error as Error).message}`));
  }
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
