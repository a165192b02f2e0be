import { PrismaClient } from "@/lib/generated/prisma/client";
import { createHash } from "node:crypto";
import { databaseConfig } from "@/lib/db/config";

export type Db = PrismaClient;
/** A client or an interactive transaction: what services pass around. */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

const cache = globalThis as unknown as { kindgiDb?: Promise<PrismaClient> };

// PGlite runs one statement at a time, so a transaction may wait its turn behind others.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 };

async function createClient(): Promise<PrismaClient> {
  const config = databaseConfig();
  if (config.kind === "postgresql") {
    const { PrismaPg } = await import("@prisma/adapter-pg");
    const adapter = new PrismaPg({ connectionString: config.url, max: Number(process.env.KINDGI_DB_POOL_SIZE ?? 10) }, { statementNameGenerator: statementName as (query: { sql: string }) => string });
    return withTransactionHooks(new PrismaClient({ adapter, transactionOptions }));
  }
  const { acquireDataDirLock } = await import("@/lib/db/lock.mjs");
  acquireDataDirLock(config.dataDir, { token: process.env.KINDGI_DATA_LOCK_TOKEN });
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const client = new PGlite(config.dataDir);
  return withTransactionHooks(new PrismaClient({ adapter: new PrismaPGlite(client), transactionOptions }));
}

const settleHooks = new WeakMap<object, (() => void)[]>();

/**
 * Runs `fn` once the interactive transaction `tx` has committed or rolled back (at once when `tx` is no transaction:
 * its statements commit as they run).
 */
export function afterTransaction(tx: DbTx, fn: () => void): void {
  const hooks = settleHooks.get(tx);
  if (hooks) hooks.push(fn);
  else fn();
}

/** Lets {@link afterTransaction} know when an interactive transaction settles. */
function withTransactionHooks(client: PrismaClient): PrismaClient {
  const original = client.$transaction.bind(client) as (arg: unknown, options?: unknown) => Promise<unknown>;
  const hooked = (arg: unknown, options?: unknown) => {
    if (typeof arg !== "function") return original(arg, options);
    let opened: object | undefined;
    const settle = () => {
      const hooks = opened && settleHooks.get(opened);
      if (!hooks) return;
      settleHooks.delete(opened!);
      for (const hook of hooks) hook();
    };
    return original(async (tx: object) => {
      opened = tx;
      settleHooks.set(tx, []);
      return (arg as (tx: object) => Promise<unknown>)(tx);
    }, options).finally(settle);
  };
  Object.defineProperty(client, "$transaction", { value: hooked, configurable: true, writable: true });
  return client;
}

const statementNames = new Map<string, string>();

/**
 * A prepared-statement name for the kernel's hot-path statements (their text starts with `/* kindgi:`, and is
 * constant): PostgreSQL parses and plans each once per connection. Other statements stay unnamed (their text varies).
 */
export function statementName(query: { sql: string }): string | undefined {
  if (!query.sql.startsWith("/* kindgi:")) return undefined;
  let name = statementNames.get(query.sql);
  if (!name) {
    name = `kindgi_${createHash("sha1").update(query.sql).digest("hex").slice(0, 16)}`;
    statementNames.set(query.sql, name);
  }
  return name;
}

/** The process's one Prisma client, created on first use. */
export function getDb(): Promise<PrismaClient> {
  cache.kindgiDb ??= createClient().catch((error) => {
    cache.kindgiDb = undefined;
    throw error;
  });
  return cache.kindgiDb;
}
