// Prisma migrations without the Prisma CLI's native engine: the WebAssembly schema engine
// drives the same driver adapters the app uses. Plain ESM so `npm start` can run it before Next.
//   deploy  – apply pending migrations from prisma/migrations (what `npm start` does)
//   dev     – diff the migration history against schema.prisma on a shadow database, write a new
//             migration folder, then apply it (what a developer runs after editing the schema)
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dropDatabase } from "./drop-database.mjs";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const schemaPath = path.join(root, "prisma/schema.prisma");
const migrationsDir = path.join(root, "prisma/migrations");
const filters = { externalTables: [], externalEnums: [] };

async function loadEngineModule() {
  const bg = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const wasmFile = path.join(path.dirname(require.resolve("@prisma/schema-engine-wasm")), "schema_engine_bg.wasm");
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmFile), { "./schema_engine_bg.js": bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return bg;
}

/** pglite-prisma-adapter 0.7.2 does not await exec() in executeScript: a failing migration would be recorded as applied. */
function awaitingScripts(adapter) {
  adapter.executeScript = async (script) => {
    try { await adapter.client.exec(script); } catch (error) { adapter.onError(error); }
  };
  return adapter;
}

async function pgliteFactory(dataDir) {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  fs.mkdirSync(dataDir, { recursive: true });
  const client = new PGlite(dataDir);
  const base = new PrismaPGlite(client);
  return {
    factory: {
      provider: base.provider,
      adapterName: base.adapterName,
      connect: async () => awaitingScripts(await base.connect()),
      connectToShadowDb: async () => awaitingScripts(await base.connectToShadowDb()),
    },
    close: () => client.close(),
  };
}

async function pgFactory(url) {
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const pg = (await import("pg")).default;
  // The engine's describer reads pg_catalog "char" columns (OID 18), which adapter-pg rejects: read them as text.
  const addFields = pg.Result.prototype.addFields;
  pg.Result.prototype.addFields = function (fields) {
    for (const field of fields) if (field.dataTypeID === 18) field.dataTypeID = 25;
    return addFields.call(this, fields);
  };
  // adapter-pg splits scripts on ";" outside a transaction: send each migration as one query instead.
  const wholeScript = (adapter) => {
    adapter.executeScript = async (script) => {
      try { await adapter.underlyingDriver().query(script); } catch (error) { adapter.onError(error); }
    };
    return adapter;
  };
  const base = new PrismaPg({ connectionString: url });
  // Each connect() opens a pool of its own; the engine does not end them, so close() does (else the connection stays
  // open in `npm start`'s process until pg's idle timeout).
  const connected = [];
  return {
    factory: {
      provider: base.provider,
      adapterName: base.adapterName,
      connect: async () => {
        const adapter = wholeScript(await base.connect());
        connected.push(adapter);
        return adapter;
      },
      async connectToShadowDb() {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        const name = `kindgi_shadow_${process.pid}_${Date.now()}`;
        await admin.query(`CREATE DATABASE "${name}"`);
        const shadowUrl = new URL(url);
        shadowUrl.pathname = "/" + name;
        const inner = wholeScript(await new PrismaPg({ connectionString: shadowUrl.toString() }).connect());
        const dispose = inner.dispose.bind(inner);
        inner.dispose = async () => {
          await dispose();
          await dropDatabase(admin, name);
          await admin.end();
        };
        return inner;
      },
    },
    close: async () => {
      await Promise.all(connected.map((adapter) => adapter.dispose().catch(() => {})));
    },
  };
}

function migrationsList() {
  const lockPath = path.join(migrationsDir, "migration_lock.toml");
  const dirs = fs.existsSync(migrationsDir)
    ? fs.readdirSync(migrationsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()
    : [];
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok", value: fs.readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8") },
      },
    })),
  };
}

/**
 * Runs the schema engine against the configured database.
 * @param {{ command: "deploy" | "dev", name?: string, databaseUrl?: string, dataDir?: string, log?: (line: string) => void }} options
 * @returns {Promise<string[]>} the migrations applied now
 */
export async function runMigrations({ command, name = "migration", databaseUrl, dataDir, log = () => {} }) {
  const bg = await loadEngineModule();
  const { bindMigrationAwareSqlAdapterFactory } = await import("@prisma/driver-adapter-utils");
  const { factory, close } = databaseUrl ? await pgFactory(databaseUrl) : await pgliteFactory(dataDir);
  const files = [{ path: schemaPath, content: fs.readFileSync(schemaPath, "utf8") }];
  const engine = await bg.SchemaEngine.new(
    { datamodels: [[schemaPath, files[0].content]] },
    (message) => { if (process.env.KINDGI_DEBUG_MIGRATIONS) log(`[schema-engine] ${message}`); },
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  try {
    if (command === "dev") {
      fs.mkdirSync(migrationsDir, { recursive: true });
      fs.writeFileSync(path.join(migrationsDir, "migration_lock.toml"),
        `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n`);
      const diff = await engine.diff({ from: { tag: "migrations", ...migrationsList() }, to: { tag: "schemaDatamodel", files }, script: true, exitCode: true, filters });
      if (diff.exitCode === 2 && diff.stdout) {
        const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
        const dir = path.join(migrationsDir, `${stamp}_${name.replace(/[^A-Za-z0-9_]/g, "_")}`);
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, "migration.sql"), diff.stdout);
        log(`created ${path.relative(root, dir)}`);
      } else log("no schema changes");
    }
    const applied = await engine.applyMigrations({ migrationsList: migrationsList(), filters });
    return applied.appliedMigrationNames;
  } finally {
    engine.free();
    await close();
  }
}
