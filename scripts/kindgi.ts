// `npm run kindgi -- <command>`: operator commands.
//   tenants create NAME [--admin-email E] [--admin-password P]   create a tenant; prints JSON with its key
//   migrate                                                        apply pending migrations
//   migrate-dev [NAME]                                             create a migration from prisma/schema.prisma and apply it
import path from "node:path";
import { runMigrations } from "../lib/db/migrate.mjs";
import { acquireDataDirLock } from "../lib/db/lock.mjs";
import { withStartupLock } from "../lib/db/startup-lock.mjs";

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(args: string[]): Promise<number> {
  const dataDir = path.resolve(process.env.KINDGI_DATA_DIR ?? "data/pgdata");
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    acquireDataDirLock(dataDir, { token: process.env.KINDGI_DATA_LOCK_TOKEN });
    process.env.KINDGI_DATA_DIR = dataDir;
  }
  const [group, command, ...rest] = args;
  // On PostgreSQL, not while a server starting on the same database migrates (lib/db/startup-lock.mjs).
  const migrate = (options: Parameters<typeof runMigrations>[0]) => (databaseUrl ? withStartupLock(databaseUrl, () => runMigrations(options)) : runMigrations(options));
  if (group === "migrate" || group === "migrate-dev") {
    const applied = await migrate({ command: group === "migrate" ? "deploy" : "dev", name: command, databaseUrl, dataDir, log: console.log });
    console.log(applied.length ? `applied ${applied.join(", ")}` : "the database is up to date");
    return 0;
  }
  if (group === "tenants" && command === "create") {
    const name = rest.find((arg, index) => !arg.startsWith("--") && !rest[index - 1]?.startsWith("--"));
    if (!name) throw new Error("usage: npm run kindgi -- tenants create NAME [--admin-email E] [--admin-password P]");
    await migrate({ command: "deploy", databaseUrl, dataDir });
    const { createTenant } = await import("../lib/services/create-tenant");
    const created = await createTenant({ name, adminEmail: option(rest, "--admin-email"), adminPassword: option(rest, "--admin-password") });
    console.log(JSON.stringify(created, null, 2));
    return 0;
  }
  console.error("usage: npm run kindgi -- tenants create NAME | migrate | migrate-dev [NAME]");
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`kindgi: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
