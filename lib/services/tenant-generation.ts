/**
 * Per-tenant cache generations: what a request may serve from memory instead of the database (the actor an API key or
 * a session stands for, tool and guardrail resolutions, provider lists, agents' active versions, catalog pages) is
 * cached under its tenant's generation, and every write that can change such a value bumps the generation in its own
 * transaction ({@link bumpGeneration}).
 *
 * - In this process a bump invalidates at once: when it is made (inside the transaction) and again when the
 *   transaction settles (a value loaded between the two could have read the state before the commit).
 * - On PostgreSQL a write is read on the very next request on any replica. Once a write has committed, its process
 *   advances a change counter — a sequence, `kindgi_access_changes` for keys, members, projects, providers, secrets and
 *   MCP endpoints, `kindgi_catalog_changes` for tools, agents and guardrails — before it answers
 *   ({@link generationChanged}), and announces which tenants changed, with the counter's new value, on the event bus
 *   (topic `generation`, lib/services/event-bus.ts), which every process hears. Before a cached value is served, and
 *   before one is loaded, the process reads both counters in one small statement sent after the request for the value
 *   (concurrent requests share a read: one at a time, the next for all that came meanwhile). Every change up to the
 *   counters read that the process has heard announced has invalidated its tenant already; if one has not been heard
 *   yet (the announcement is a few milliseconds behind, or was lost), the process forgets every value of that kind.
 *   So no request is answered from memory with "not found" or an older version of what the database held when the
 *   write answered, and the announcements keep the forgetting to the tenants that changed.
 * - The counter is advanced and the announcement sent after the write has committed, not inside it: a NOTIFY holds
 *   PostgreSQL's one notification-queue lock from before its transaction's commit until the commit is flushed, so
 *   writes that notify commit one at a time (`npx tsx bench/notify-commits.ts`: 16 connections inserting a row each
 *   commit at 42-45 % of the rate without the NOTIFY); and a counter advanced before the commit could be read, and a
 *   value loaded, before the write is visible. Concurrent writes share one counter statement (one at a time).
 * - Whatever happens, no cached value is served more than {@link CACHE_TTL_MS} after its load started. A value the
 *   database does not have (an unknown API key) is never kept.
 * On the embedded database (PGlite) the process is the only one: its own invalidations are all there is.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { hash } from "node:crypto";
import { databaseConfig } from "@/lib/db/config";
import { afterTransaction, getSideQuery, type DbTx } from "@/lib/db";
import { eventBus } from "@/lib/services/event-bus";
import { startEventBus } from "@/lib/services/event-bus-postgres";
import { log } from "@/lib/log";

/** The longest a cached value is served after its load started, whatever the counters and notifications say. */
export const CACHE_TTL_MS = 1000;
/** The most values held; the oldest go first. */
const MAX_ENTRIES = 20_000;
/** The event bus topic of the announcements: `{ tenants: string[], access?: number, catalog?: number }`. */
export const GENERATION_TOPIC = "generation";

/**
 * What a write can change, so that a write bumps only the values it can make stale: `catalog` (tools, agents and
 * guardrails: their resolutions) or everything of the tenant (keys, members, projects, providers, secrets, MCP
 * endpoints) when none is named.
 */
export type GenerationScope = "catalog";

/** The two change counters: `access` advanced by a change of everything of a tenant, `catalog` by a catalog change. */
type Counter = "access" | "catalog";
type Counters = Record<Counter, number>;
const COUNTERS: readonly Counter[] = ["access", "catalog"];

type Entry = { epoch: number; loadedAt: number; tenantId: string | null; scope: GenerationScope | null; value: Promise<unknown> };
type State = {
  /** Incremented by every invalidation, here or elsewhere. */
  epoch: number;
  /** The epoch of each tenant's last invalidation (`<tenant>` or `<tenant>:catalog`; `*` and `*:catalog`: all tenants). */
  bumped: Map<string, number>;
  entries: Map<string, Entry>;
  listening: boolean;
  /** The counters up to which every change is accounted for here (invalidated); null before the first read. */
  known: Counters | null;
  /** Changes beyond `known` this process has heard of (and invalidated). */
  heard: Record<Counter, Set<number>>;
};

const state: State = ((globalThis as { [key: symbol]: State | undefined })[Symbol.for("kindgi.tenant-generation")] ??= {
  epoch: 0,
  bumped: new Map(),
  entries: new Map(),
  listening: false,
  known: null,
  heard: { access: new Set(), catalog: new Set() },
});

const onPostgres = () => databaseConfig().kind === "postgresql";

/** Invalidates every value cached for `tenantId` in this process (of `scope` only when given). */
export function invalidateTenant(tenantId: string, scope?: GenerationScope): void {
  state.epoch += 1;
  state.bumped.set(scope ? `${tenantId}:${scope}` : tenantId, state.epoch);
  tellWatchers(tenantId);
}

/** Hears of a tenant's change (`null`: of any tenant's, the changes may have been missed). */
export type ChangeWatcher = (tenantId: string | null) => void;
const watchers: Set<ChangeWatcher> = ((globalThis as { [key: symbol]: Set<ChangeWatcher> | undefined })[Symbol.for("kindgi.tenant-generation.watchers")] ??= new Set());

/**
 * Hears of every change this process learns of — its own writes (as they are made, and again once committed) and,
 * on PostgreSQL, the other processes' announcements — until the returned function is called. A hint to look again
 * (the MCP server's `notifications/tools/list_changed`), never the change itself.
 */
export function watchTenantChanges(watcher: ChangeWatcher): () => void {
  ensureListening();
  watchers.add(watcher);
  return () => {
    watchers.delete(watcher);
  };
}

function tellWatchers(tenantId: string | null): void {
  for (const watcher of watchers) {
    try {
      watcher(tenantId);
    } catch (error) {
      log.error("a watcher of tenant changes failed", { err: error });
    }
  }
}

/**
 * Marks a change to what `tenantId`'s cached values hold, inside the transaction `tx` that makes it: this process
 * forgets them now and again once the transaction settles, when the other processes on PostgreSQL are told (the
 * transaction's promise resolves after that).
 */
export function bumpGeneration(tx: DbTx, tenantId: string, scope?: GenerationScope): void {
  invalidateTenant(tenantId, scope);
  afterTransaction(tx, () => generationChanged(tenantId, scope));
}

/**
 * After a change to what `tenantId`'s cached values hold has committed (or failed): this process forgets them, and on
 * PostgreSQL the change counter advances (resolved once it has) and the other processes are told. A change made by
 * one statement outside any transaction calls {@link invalidateTenant} before the statement and awaits this after it.
 */
export function generationChanged(tenantId: string, scope?: GenerationScope): Promise<void> {
  invalidateTenant(tenantId, scope);
  if (!onPostgres()) return Promise.resolve();
  ensureListening();
  return counterAdvance.announce(generationPayload(tenantId, scope));
}

/** The least time between two notifications a process sends: a burst of writes is told in one. */
export const ANNOUNCE_INTERVAL_MS = 50;

/**
 * Sends what is announced with `send`: at once when nothing was sent in the last `intervalMs`, else together with
 * whatever else is announced until then, at most one call at a time (payloads announced twice go once). A failed
 * call is reported to `onError`, and what is announced next is sent all the same.
 */
export function createAnnouncer(send: (payloads: string[]) => Promise<void>, onError: (error: unknown) => void, intervalMs = ANNOUNCE_INTERVAL_MS) {
  let pending: { payloads: Set<string>; done: Promise<void>; resolve: () => void } | null = null;
  let sending = false;
  let lastSent = -Infinity;
  const flush = async () => {
    sending = true;
    while (pending) {
      const wait = lastSent + intervalMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref?.());
      const batch = pending;
      pending = null;
      lastSent = performance.now();
      try {
        await send([...batch.payloads]);
      } catch (error) {
        onError(error);
      }
      batch.resolve();
    }
    sending = false;
  };
  return {
    /** Resolves once the call that carries `payload` has returned (or failed). */
    announce(payload: string): Promise<void> {
      if (!pending) {
        let resolve!: () => void;
        const done = new Promise<void>((settle) => (resolve = settle));
        pending = { payloads: new Set(), done, resolve };
      }
      pending.payloads.add(payload);
      const { done } = pending;
      if (!sending) void flush();
      return done;
    },
  };
}

/**
 * `read(since)` answers with the result of a call of `load` started at or after `since` (a `performance.now()` time):
 * the last one when it was, else a new one at once when none is on its way, else the one that starts, for every caller
 * who came meanwhile, once the call on its way has returned (one at a time). A failed call is not reused.
 */
export function createSharedRead<T>(load: () => Promise<T>): (since: number) => Promise<T> {
  let latest: { startedAt: number; promise: Promise<T> } | null = null;
  let onItsWay = false;
  let next: { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } | null = null;
  const start = (): Promise<T> => {
    onItsWay = true;
    const started = { startedAt: performance.now(), promise: load() };
    latest = started;
    started.promise
      .catch(() => {
        if (latest === started) latest = null;
      })
      .finally(() => {
        onItsWay = false;
        if (next) {
          const waiting = next;
          next = null;
          start().then(waiting.resolve, waiting.reject);
        }
      });
    return started.promise;
  };
  return (since) => {
    if (latest && latest.startedAt >= since) return latest.promise;
    if (!onItsWay) return start();
    if (!next) {
      let resolve!: (value: T) => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<T>((ok, fail) => ((resolve = ok), (reject = fail)));
      next = { promise, resolve, reject };
    }
    return next.promise;
  };
}

/** When the request being served arrived ({@link asOneRequest}), for the cached reads made while serving it. */
const requestClock: AsyncLocalStorage<number> = ((globalThis as { [key: symbol]: AsyncLocalStorage<number> | undefined })[Symbol.for("kindgi.request-clock")] ??= new AsyncLocalStorage<number>());
/** How long after its request arrived a cached read still takes a reading of the counters sent since the arrival. */
const REQUEST_SHARE_MS = 100;

/**
 * Runs `fn` as the serving of a request that arrived now (the API's route wrapper): the cached reads it makes (the
 * caller's key, then what the handler reads) may share one reading of the change counters sent after that moment.
 */
export function asOneRequest<T>(fn: () => T): T {
  return requestClock.run(performance.now(), fn);
}

/** The earliest moment a reading of the counters may have been sent for the caller: its request's arrival, else now. */
function readingSince(): number {
  const now = performance.now();
  const arrived = requestClock.getStore();
  return arrived === undefined ? now : Math.max(arrived, now - REQUEST_SHARE_MS);
}

const COUNTER_SEQUENCES: Record<Counter, string> = { access: "kindgi_access_changes", catalog: "kindgi_catalog_changes" };
const ADVANCE_SQL = `/* kindgi:generation advance */ SELECT CASE WHEN $1::boolean THEN nextval('"${COUNTER_SEQUENCES.access}"') END AS "access", CASE WHEN $2::boolean THEN nextval('"${COUNTER_SEQUENCES.catalog}"') END AS "catalog"`;
const READ_SQL = `/* kindgi:generation read */ SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM "${COUNTER_SEQUENCES.access}") AS "access", (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM "${COUNTER_SEQUENCES.catalog}") AS "catalog"`;

/** Advances the counters the announced changes need, then tells the other processes (payloads as {@link generationPayload}). */
const counterAdvance = createAnnouncer(
  async (payloads) => {
    const access = payloads.some((payload) => !payload.endsWith(":catalog"));
    const catalog = payloads.some((payload) => payload.endsWith(":catalog"));
    const query = await getSideQuery();
    const [row] = await query<{ access: string | number | null; catalog: string | number | null }>(ADVANCE_SQL, [access, catalog]);
    const announcement: { tenants: string[]; access?: number; catalog?: number } = { tenants: payloads };
    for (const counter of COUNTERS) {
      if (row?.[counter] === null || row?.[counter] === undefined) continue;
      announcement[counter] = Number(row[counter]);
      heardChange(counter, announcement[counter]);
    }
    eventBus().publish(GENERATION_TOPIC, announcement);
  },
  (error) => log.error(`could not tell the other servers of a change (they see it within ${CACHE_TTL_MS} ms)`, { err: error }),
  0,
);

/** What a bump of `tenantId` (of `scope`) announces. */
export const generationPayload = (tenantId: string, scope?: GenerationScope) => (scope ? `${tenantId}:${scope}` : tenantId);

/** A change numbered `value` on `counter` is accounted for here (its tenant was invalidated). */
function heardChange(counter: Counter, value: number): void {
  if (state.known && value > state.known[counter]) state.heard[counter].add(value);
}

/** An announcement heard on the bus, or `null` after the bus may have lost some. */
function onAnnouncement(message: unknown): void {
  if (message === null) {
    // Whatever was missed while disconnected: forget everything.
    forgetAll();
    return;
  }
  const announcement = message as { tenants?: unknown; access?: unknown; catalog?: unknown };
  if (!Array.isArray(announcement.tenants)) return;
  for (const payload of announcement.tenants) {
    if (typeof payload !== "string") continue;
    const [tenantId, scope] = payload.split(":");
    // A change the counters read here counted already was accounted for then (its tenant, or everything of its kind,
    // forgotten): what was loaded since has read it.
    const value = announcement[scope === "catalog" ? "catalog" : "access"];
    if (typeof value === "number" && state.known && value <= state.known[scope === "catalog" ? "catalog" : "access"]) continue;
    invalidateTenant(tenantId, scope === "catalog" ? scope : undefined);
  }
  for (const counter of COUNTERS) {
    const value = announcement[counter];
    if (typeof value === "number") heardChange(counter, value);
  }
}

const readCounters = createSharedRead(async (): Promise<Counters> => {
  const query = await getSideQuery();
  const [row] = await query<{ access: string | number; catalog: string | number }>(READ_SQL, []);
  return { access: Number(row.access), catalog: Number(row.catalog) };
});

/**
 * Brings this process up to the change counters as read now: every change up to them is accounted for (heard and
 * invalidated, or else everything of its kind invalidated).
 */
async function catchUpWithCounters(): Promise<void> {
  const counters = await readCounters(readingSince());
  if (!state.known) {
    // The first read (or the first after a loss, with nothing cached): every value is loaded after it.
    state.known = { ...counters };
    return;
  }
  for (const counter of COUNTERS) {
    let known = state.known[counter];
    if (counters[counter] <= known) continue;
    const heard = state.heard[counter];
    while (heard.delete(known + 1)) known += 1;
    if (known < counters[counter]) {
      // A change not heard of yet: every value it could have changed is forgotten.
      state.epoch += 1;
      state.bumped.set(counter === "catalog" ? "*:catalog" : "*", state.epoch);
      tellWatchers(null);
      known = counters[counter];
    }
    state.known[counter] = known;
    for (const value of heard) if (value <= known) heard.delete(value);
  }
}

function fresh(entry: Entry, now: number): boolean {
  if (now - entry.loadedAt > CACHE_TTL_MS) return false;
  // A load on its way whose tenant is not known yet: shared while nothing at all was invalidated since it began.
  if (entry.tenantId === null) return entry.epoch === state.epoch;
  const bumped = (key: string) => (state.bumped.get(key) ?? 0) > entry.epoch;
  if (bumped("*") || bumped(entry.tenantId)) return false;
  return entry.scope === null || !(bumped("*:catalog") || bumped(`${entry.tenantId}:${entry.scope}`));
}

function store(key: string, entry: Entry) {
  state.entries.delete(key);
  state.entries.set(key, entry);
  if (state.entries.size > MAX_ENTRIES) {
    const now = Date.now();
    for (const [oldKey, old] of state.entries) {
      if (state.entries.size <= MAX_ENTRIES * 0.9) break;
      if (!fresh(old, now) || state.entries.size > MAX_ENTRIES) state.entries.delete(oldKey);
    }
  }
}

/**
 * The value of `key` for `tenantId`: cached while the tenant's generation holds (at most {@link CACHE_TTL_MS}), else
 * loaded by `load` (concurrent callers share one load). A load that fails is not kept.
 */
export function cached<T>(tenantId: string, key: string, load: () => Promise<T>, scope?: GenerationScope): Promise<T> {
  return lookup(`${tenantId}\u0000${key}`, tenantId, async () => ({ tenantId, value: await load() }), scope);
}

/**
 * As {@link cached}, for a value whose tenant is known only once loaded (the actor of an API key): `load` names it,
 * or answers tenant `""` for a value the database does not have, which is not kept. `key` is global; pass a digest,
 * not a secret.
 */
export function cachedFor<T>(key: string, load: () => Promise<{ tenantId: string; value: T }>, scope?: GenerationScope): Promise<T> {
  return lookup(key, null, load, scope);
}

function lookup<T>(key: string, tenantId: string | null, load: () => Promise<{ tenantId: string; value: T }>, scope?: GenerationScope): Promise<T> {
  ensureListening();
  if (!onPostgres()) return serve(key, tenantId, load, scope);
  return catchUpWithCounters().then(() => serve(key, tenantId, load, scope));
}

function serve<T>(key: string, tenantId: string | null, load: () => Promise<{ tenantId: string; value: T }>, scope?: GenerationScope): Promise<T> {
  const now = Date.now();
  const hit = state.entries.get(key);
  if (hit && fresh(hit, now)) return hit.value as Promise<T>;
  const entry: Entry = { epoch: state.epoch, loadedAt: now, tenantId, scope: scope ?? null, value: Promise.resolve() };
  entry.value = load().then(
    (loaded) => {
      // Not in the database: read again next time.
      if (loaded.tenantId === "") {
        if (state.entries.get(key) === entry) state.entries.delete(key);
      } else entry.tenantId = loaded.tenantId;
      return loaded.value;
    },
    (error) => {
      if (state.entries.get(key) === entry) state.entries.delete(key);
      throw error;
    },
  );
  store(key, entry);
  return entry.value as Promise<T>;
}

/** A digest of a secret (a key, a session token) to cache under. */
export const cacheKeyOf = (kind: string, secret: string) => `${kind}:${hash("sha256", secret, "base64url")}`;

/** Forgets every cached value (tests). */
export function clearCaches(): void {
  state.entries.clear();
}

/** Forgets every cached value and what the counters were: the next request reads both again. */
function forgetAll(): void {
  tellWatchers(null);
  state.entries.clear();
  state.known = null;
  for (const counter of COUNTERS) state.heard[counter].clear();
}

/** On PostgreSQL, hears the other processes' announcements on the event bus (started here if the server did not). */
function ensureListening() {
  if (state.listening) return;
  state.listening = true;
  if (!onPostgres()) return;
  void startEventBus();
  eventBus().subscribe(GENERATION_TOPIC, onAnnouncement);
}
