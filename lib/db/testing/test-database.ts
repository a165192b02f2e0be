/**
 * A migrated database of a test's own, for unit tests of code that takes a `db`: embedded PGlite in a temporary
 * folder, or a fresh database on the PostgreSQL server KINDGI_TEST_DATABASE_URL names (dropped on close).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { runMigrations } from "@/lib/db/migrate.mjs";
import { dropDatabase } from "@/lib/db/drop-database.mjs";

export type TestDatabase = { db: PrismaClient; backend: "pglite" | "postgresql"; close: () => Promise<void> };

export async function openTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.KINDGI_TEST_DATABASE_URL;
  if (serverUrl) return openPostgres(serverUrl);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-unit-db-"));
  await runMigrations({ command: "deploy", dataDir });
  const { PGliteThread, prismaAdapter } = await import("@/lib/db/pglite-thread");
  // The embedded database as the product runs it: on a thread of its own.
  const client = new PGliteThread(dataDir);
  const db = new PrismaClient({ adapter: prismaAdapter(client) });
  return {
    db,
    backend: "pglite",
    close: async () => {
      await db.$disconnect();
      await client.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(serverUrl: string): Promise<TestDatabase> {
  const pg = (await import("pg")).default;
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const name = `kindgi_unit_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await runMigrations({ command: "deploy", databaseUrl: url.toString() });
  const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: url.toString() }) });
  return {
    db,
    backend: "postgresql",
    close: async () => {
      await db.$disconnect();
      await dropDatabase(admin, name);
      await admin.end();
    },
  };
}
