/**
 * Per-tenant cache generations: what a request may serve from memory instead of the database (the actor an API key or
 * a session stands for, tool and guardrail resolutions, provider lists) is cached under its tenant's generation, and
 * every write that can change such a value bumps the generation in its own transaction ({@link bumpGeneration}).
 *
 * - In this process a bump invalidates at once: when it is made (inside the transaction) and again when the
 *   transaction settles (a value loaded between the two could have read the state before the commit).
 * - Other processes on the same PostgreSQL database learn of a bump through `NOTIFY kindgi_generation`, which they
 *   hear on one listening connection each. The writing process sends it right after the write has committed
 *   ({@link generationChanged}), not inside the write: a NOTIFY holds PostgreSQL's one notification-queue lock from
 *   before its transaction's commit until the commit is flushed, so writes that notify commit one at a time
 *   (`npx tsx bench/notify-commits.ts`: 16 connections inserting a row each commit at 42-45 % of the rate without the
 *   NOTIFY). A burst of bumps is told in one notification, at most one every {@link ANNOUNCE_INTERVAL_MS}.
 * - Whatever happens to that connection, no cached value is served more than {@link CACHE_TTL_MS} after its load
 *   started: a revoked key is refused at once on the server that revoked it and within one second everywhere.
 * On the embedded database (PGlite) the process is the only one.
 */
import { hash } from "node:crypto";
import { databaseConfig } from "@/lib/db/config";
import { afterTransaction, getRawQuery, type DbTx } from "@/lib/db";

/** The longest a cached value is served after its load started, whatever the notifications say. */
export const CACHE_TTL_MS = 1000;
/** The most values held; the oldest go first. */
const MAX_ENTRIES = 20_000;
const CHANNEL = "kindgi_generation";

/**
 * What a write can change, so that a write bumps only the values it can make stale: `catalog` (tools, agents and
 * guardrails: their resolutions) or everything of the tenant (keys, members, projects, providers, secrets, MCP
 * endpoints) when none is named.
 */
export type GenerationScope = "catalog";

type Entry = { epoch: number; loadedAt: number; tenantId: string | null; scope: GenerationScope | null; value: Promise<unknown> };
type State = {
  /** Incremented by every bump, here or elsewhere. */
  epoch: number;
  /** The epoch of each tenant's last bump. */
  bumped: Map<string, number>;
  entries: Map<string, Entry>;
  listening: boolean;
};

const state: State = ((globalThis as { [key: symbol]: State | undefined })[Symbol.for("kindgi.tenant-generation")] ??= { epoch: 0, bumped: new Map(), entries: new Map(), listening: false });

/** Invalidates every value cached for `tenantId` in this process (of `scope` only when given). */
export function invalidateTenant(tenantId: string, scope?: GenerationScope): void {
  state.epoch += 1;
  state.bumped.set(scope ? `${tenantId}:${scope}` : tenantId, state.epoch);
}

/**
 * Marks a change to what `tenantId`'s cached values hold, inside the transaction `tx` that makes it: this process
 * forgets them now and again once the transaction settles, when the other processes on PostgreSQL are told.
 */
export function bumpGeneration(tx: DbTx, tenantId: string, scope?: GenerationScope): void {
  invalidateTenant(tenantId, scope);
  afterTransaction(tx, () => generationChanged(tenantId, scope));
}

/**
 * After a change to what `tenantId`'s cached values hold has committed (or failed): this process forgets them, and the
 * other processes on PostgreSQL are told. A change made by one statement outside any transaction calls
 * {@link invalidateTenant} before the statement and this after it.
 */
export function generationChanged(tenantId: string, scope?: GenerationScope): void {
  invalidateTenant(tenantId, scope);
  if (databaseConfig().kind === "postgresql") void announcer.announce(generationPayload(tenantId, scope));
}

/** The least time between two notifications a process sends: a burst of writes is told in one. */
export const ANNOUNCE_INTERVAL_MS = 50;

/**
 * Sends what is announced with `send`: at once when nothing was sent in the last `intervalMs`, else together with
 * whatever else is announced until then, at most one call at a time (payloads announced twice go once). A failed
 * call is reported to `onError`, and what is announced next is sent all the same (the other processes' time-to-live
 * covers what a lost notification did not tell them).
 */
export function createAnnouncer(send: (payloads: string[]) => Promise<void>, onError: (error: unknown) => void, intervalMs = ANNOUNCE_INTERVAL_MS) {
  const pending = new Set<string>();
  let sending: Promise<void> | null = null;
  let lastSent = -Infinity;
  const flush = async () => {
    while (pending.size) {
      const wait = lastSent + intervalMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref?.());
      const payloads = [...pending];
      pending.clear();
      lastSent = performance.now();
      try {
        await send(payloads);
      } catch (error) {
        onError(error);
      }
    }
    sending = null;
  };
  return {
    /** Resolves once `payload` has been sent (or its call failed). */
    announce(payload: string): Promise<void> {
      pending.add(payload);
      sending ??= flush();
      return sending;
    },
  };
}

const announcer = createAnnouncer(
  async (payloads) => {
    const raw = await getRawQuery();
    await raw(`/* kindgi:generation announce */ SELECT pg_notify('${CHANNEL}', payload) FROM unnest($1::text[]) AS payload`, [payloads]);
  },
  (error) => console.error(`[kindgi] could not tell the other servers of a change (they see it within ${CACHE_TTL_MS} ms): ${error instanceof Error ? error.message : String(error)}`),
);

/** What a bump of `tenantId` (of `scope`) notifies. */
export const generationPayload = (tenantId: string, scope?: GenerationScope) => (scope ? `${tenantId}:${scope}` : tenantId);

function fresh(entry: Entry, now: number): boolean {
  if (now - entry.loadedAt > CACHE_TTL_MS) return false;
  if (entry.tenantId === null) return true;
  if ((state.bumped.get(entry.tenantId) ?? 0) > entry.epoch) return false;
  return entry.scope === null || (state.bumped.get(`${entry.tenantId}:${entry.scope}`) ?? 0) <= entry.epoch;
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
  return cachedFor(`${tenantId}\u0000${key}`, async () => ({ tenantId, value: await load() }), scope);
}

/**
 * As {@link cached}, for a value whose tenant is known only once loaded (the actor of an API key): `load` names it.
 * `key` is global; pass a digest, not a secret.
 */
export function cachedFor<T>(key: string, load: () => Promise<{ tenantId: string; value: T }>, scope?: GenerationScope): Promise<T> {
  ensureListening();
  const now = Date.now();
  const hit = state.entries.get(key);
  if (hit && fresh(hit, now)) return hit.value as Promise<T>;
  const entry: Entry = { epoch: state.epoch, loadedAt: now, tenantId: null, scope: scope ?? null, value: Promise.resolve() };
  entry.value = load().then(
    (loaded) => {
      entry.tenantId = loaded.tenantId;
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

/** One LISTEN connection per process on PostgreSQL; it reconnects after a failure (the TTL covers the gap). */
function ensureListening() {
  if (state.listening) return;
  state.listening = true;
  const config = databaseConfig();
  if (config.kind !== "postgresql") return;
  const connect = async (delay: number) => {
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: config.url });
    let retried = false;
    const retry = () => {
      if (retried) return;
      retried = true;
      client.end().catch(() => {});
      // Whatever was missed while disconnected: forget everything.
      state.entries.clear();
      setTimeout(() => connect(Math.min(delay * 2, 5000)).catch(() => {}), delay).unref();
    };
    client.on("error", retry);
    client.on("end", retry);
    client.on("notification", (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      const [tenantId, scope] = message.payload.split(":");
      invalidateTenant(tenantId, scope === "catalog" ? scope : undefined);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      // The connection must not keep the process alive on its own.
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    } catch {
      retry();
    }
  };
  connect(100).catch(() => {});
}
