import { getDb } from "@/lib/db";
import fs from "node:fs";
import path from "node:path";
import { databaseConfig } from "@/lib/db/config";
import { busState } from "@/lib/services/event-bus-postgres";

/** Which database this server uses, after checking that it answers. Never reveals credentials. */
export async function checkHealth() {
  const config = databaseConfig();
  const db = await getDb();
  await db.$queryRaw`SELECT 1`;
  const location = config.kind === "pglite" ? config.dataDir : (() => {
    const url = new URL(config.url);
    return `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  })();
  return { status: "ok" as const, version: process.env.npm_package_version ?? "0.1.0", database: { kind: config.kind, location } };
}

export type ReadinessCheck = { ok: boolean; detail?: string };
export type Readiness = { status: "ready" | "not-ready"; checks: { database: ReadinessCheck; migrations: ReadinessCheck; eventBus: ReadinessCheck } };

/** What readiness looks at, injectable (tests). */
export type ReadinessProbe = {
  /** A trivial query; throws when the database does not answer. */
  ping(): Promise<void>;
  /** The names of the migrations applied (finished, not rolled back). */
  appliedMigrations(): Promise<string[]>;
  /** The names of the migrations this build knows (prisma/migrations). */
  knownMigrations(): string[];
  /** Whether the event bus hears the other replicas. */
  busListening(): boolean;
};

/** How long the database may take to answer a readiness check. */
export const READINESS_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0].slice(0, 200);

/**
 * Whether this replica can serve: the database answers (within {@link READINESS_TIMEOUT_MS}), every migration the build
 * knows is applied, and the event bus listens (PostgreSQL: its LISTEN connection is up; PGlite: always).
 */
export async function checkReadiness(probe: ReadinessProbe = defaultProbe): Promise<Readiness> {
  const database: ReadinessCheck = await withTimeout(probe.ping(), READINESS_TIMEOUT_MS, "the database").then(
    () => ({ ok: true }),
    (error) => ({ ok: false, detail: message(error) }),
  );
  let migrations: ReadinessCheck;
  if (!database.ok) migrations = { ok: false, detail: "not checked: the database does not answer" };
  else {
    try {
      const applied = new Set(await withTimeout(probe.appliedMigrations(), READINESS_TIMEOUT_MS, "the database"));
      const known = probe.knownMigrations();
      const missing = known.filter((name) => !applied.has(name));
      migrations = missing.length ? { ok: false, detail: `not applied: ${missing.join(", ")}` } : known.length ? { ok: true } : { ok: true, detail: "this build has no prisma/migrations folder to compare with" };
    } catch (error) {
      migrations = { ok: false, detail: message(error) };
    }
  }
  const eventBus: ReadinessCheck = probe.busListening() ? { ok: true } : { ok: false, detail: "the event bus's listening connection is down" };
  const ready = database.ok && migrations.ok && eventBus.ok;
  return { status: ready ? "ready" : "not-ready", checks: { database, migrations, eventBus } };
}

let knownMigrationNames: string[] | null = null;

const defaultProbe: ReadinessProbe = {
  async ping() {
    const { getSideQuery } = await import("@/lib/db");
    await (await getSideQuery())("SELECT 1", []);
  },
  async appliedMigrations() {
    const { getSideQuery } = await import("@/lib/db");
    const rows = await (await getSideQuery())<{ name: string }>(`SELECT migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`, []);
    return rows.map((row) => row.name);
  },
  knownMigrations() {
    if (!knownMigrationNames) {
      const dir = path.join(process.cwd(), "prisma", "migrations");
      knownMigrationNames = fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort() : [];
    }
    return knownMigrationNames;
  },
  busListening() {
    return busState().listening;
  },
};
