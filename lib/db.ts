import { PrismaClient } from "@/lib/generated/prisma/client";
import { createHash } from "node:crypto";
import { databaseConfig } from "@/lib/db/config";
import type { PGliteThread } from "@/lib/db/pglite-thread";
import { log } from "@/lib/log";

export type Db = PrismaClient;
/** A client or an interactive transaction: what services pass around. */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

/**
 * One statement straight on the driver, outside Prisma: the kernel's hot-path commits (constant text, see
 * `statementName`), each a transaction of its own. Rows come back as `$queryRawUnsafe` would answer them (timestamps as
 * `Date`, JSON parsed).
 */
export type RawQuery = <T>(sql: string, params: readonly unknown[]) => Promise<T[]>;

/** What a pg pool says of its connections (lib/services/metrics.ts reads it at scrape time). */
export type PoolStats = { total: number; idle: number; waiting: number };
type PoolLike = { totalCount: number; idleCount: number; waitingCount: number };
type Database = { client: PrismaClient; raw: RawQuery; side: RawQuery; pools?: { main: PoolLike; side: PoolLike } };
const cache = globalThis as unknown as { kindgiDatabase?: Promise<Database>; kindgiDb?: Promise<PrismaClient>; kindgiRaw?: Promise<RawQuery>; kindgiSide?: Promise<RawQuery> };

// PGlite runs one statement at a time, so a transaction may wait its turn behind others.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 };

/** A `timestamp` (without time zone) column as Prisma writes it: UTC. */
const utcTimestamp = (text: string) => new Date(`${text.replace(" ", "T")}Z`);
const TIMESTAMP_OID = 1114;

/**
 * How long a pooled PostgreSQL connection may stay idle before it is closed. pg's default (10 s) closed the pool down
 * to the connection the background loops keep busy after any lull of 10 s, and the next burst of requests waited for
 * new connections (a process forked, SCRAM authentication) and prepared its statements again on them: 100 POSTs at
 * 16 at a time took about 590 ms after 12 s idle against 360 ms after 2 s, the slowest 305–364 ms against 69–73.
 */
const POOL_IDLE_TIMEOUT_MS = 10 * 60_000;
/** Connections of the side pool ({@link getSideQuery}). */
const SIDE_POOL_SIZE = 2;

async function createDatabase(): Promise<Database> {
  const config = databaseConfig();
  if (config.kind === "postgresql") {
    const [{ default: pg }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
    // One pool for Prisma and the raw statements, so both count against the same connection limit.
    const pool = new pg.Pool({ connectionString: config.url, max: Number(process.env.KINDGI_DB_POOL_SIZE ?? 10), idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS });
    // An idle connection's error (a server restart, a dropped database) must not end the process; the next query
    // opens a new connection.
    pool.on("error", (error) => log.warn("a database connection was lost", { err: error }));
    const adapter = new PrismaPg(pool, { disposeExternalPool: true, statementNameGenerator: statementName as (query: { sql: string }) => string });
    const types = { getTypeParser: (oid: number, format?: string) => (oid === TIMESTAMP_OID && format !== "binary" ? utcTimestamp : pg.types.getTypeParser(oid, format as "text")) };
    const raw: RawQuery = async <T>(sql: string, params: readonly unknown[]) => (await pool.query({ name: statementName({ sql }), text: sql, values: params as unknown[], types })).rows as T[];
    // The caches' change counters (lib/services/tenant-generation.ts): one tiny statement before a cached answer and
    // one after a write, on connections of their own so that they never queue behind a busy pool's queries.
    const sidePool = new pg.Pool({ connectionString: config.url, max: SIDE_POOL_SIZE, idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS });
    sidePool.on("error", (error) => log.warn("a database connection was lost", { err: error }));
    const side: RawQuery = async <T>(sql: string, params: readonly unknown[]) => (await sidePool.query({ name: statementName({ sql }), text: sql, values: params as unknown[], types })).rows as T[];
    return { client: withTransactionHooks(new PrismaClient({ adapter, transactionOptions })), raw, side, pools: { main: pool, side: sidePool } };
  }
  const { acquireDataDirLock } = await import("@/lib/db/lock.mjs");
  acquireDataDirLock(config.dataDir, { token: process.env.KINDGI_DATA_LOCK_TOKEN });
  const { PGliteThread, prismaAdapter } = await import("@/lib/db/pglite-thread");
  // The embedded database runs on a thread of its own (lib/db/pglite-thread.ts), not on the server's.
  const pglite = new PGliteThread(config.dataDir);
  const raw = pgliteRawQuery(pglite);
  return { client: withTransactionHooks(new PrismaClient({ adapter: prismaAdapter(pglite), transactionOptions })), raw, side: raw };
}

/**
 * The kernel's statements on the embedded database: PGlite's `query` parses and plans its statement every time, so the
 * named ones (see `statementName`) are prepared once on the database's thread, then each call is Bind/Execute/Sync in
 * one message. Like `query`, a call waits for any other caller's open transaction to end instead of running inside it.
 */
export function pgliteRawQuery(pglite: PGliteThread): RawQuery {
  const options = { parsers: { [TIMESTAMP_OID]: utcTimestamp } };
  return async <T>(sql: string, params: readonly unknown[]) => {
    const name = statementName({ sql });
    if (!name) return (await pglite.query<T>(sql, params as unknown[], options)).rows;
    return pglite.preparedQuery<T>(name, sql, params.map(parameterText), options);
  };
}

/** A parameter as the text PostgreSQL reads (timestamps in ISO 8601, objects as JSON). */
const parameterText = (value: unknown): string | null => (value === null || value === undefined ? null : value instanceof Date ? value.toISOString() : typeof value === "object" ? JSON.stringify(value) : String(value));

/**
 * The hooks of each open interactive transaction. Kept on `globalThis`: the server's bundles may hold more than one
 * copy of this module, and a hook registered through one copy must be found by the client another copy wrapped.
 */
const settleHooks: WeakMap<object, (() => void | Promise<void>)[]> = ((globalThis as { [key: symbol]: WeakMap<object, (() => void | Promise<void>)[]> | undefined })[Symbol.for("kindgi.transaction-settle-hooks")] ??= new WeakMap());

/**
 * Runs `fn` once the interactive transaction `tx` has committed or rolled back, before the transaction's promise
 * resolves (which waits for a promise `fn` returns; a failure there is logged, not thrown). At once when `tx` is no
 * transaction (its statements commit as they run), without waiting.
 */
export function afterTransaction(tx: DbTx, fn: () => void | Promise<void>): void {
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
      const waits: Promise<void>[] = [];
      for (const hook of hooks) {
        const result = hook();
        if (result) waits.push(result.catch((error) => log.error("a hook after a transaction failed", { err: error })));
      }
      if (waits.length) return Promise.all(waits).then(() => {});
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

function database(): Promise<Database> {
  cache.kindgiDatabase ??= createDatabase().catch((error) => {
    cache.kindgiDatabase = cache.kindgiDb = cache.kindgiRaw = cache.kindgiSide = undefined;
    throw error;
  });
  return cache.kindgiDatabase;
}

/** The process's one Prisma client, created on first use. */
export function getDb(): Promise<PrismaClient> {
  cache.kindgiDb ??= database().then((db) => db.client);
  return cache.kindgiDb;
}

/** One statement on the driver under the process's Prisma client (the same pool or PGlite instance). */
export function getRawQuery(): Promise<RawQuery> {
  cache.kindgiRaw ??= database().then((db) => db.raw);
  return cache.kindgiRaw;
}

/**
 * One small statement on PostgreSQL connections apart from the main pool (two), for statements on every request's
 * path that must not wait for a connection behind the requests' own queries; on PGlite the same as {@link getRawQuery}.
 */
export function getSideQuery(): Promise<RawQuery> {
  cache.kindgiSide ??= database().then((db) => db.side);
  return cache.kindgiSide;
}

/**
 * The PostgreSQL pools' connections now (the main pool and the side pool), or null on PGlite (one embedded database on
 * a thread of its own: no pool) or before the database is first used.
 */
export async function poolStats(): Promise<{ main: PoolStats; side: PoolStats } | null> {
  if (!cache.kindgiDatabase) return null;
  const db = await cache.kindgiDatabase.catch(() => null);
  if (!db?.pools) return null;
  const stats = (pool: PoolLike): PoolStats => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  return { main: stats(db.pools.main), side: stats(db.pools.side) };
}
