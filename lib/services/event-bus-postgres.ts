/**
 * The event bus on PostgreSQL (lib/services/event-bus.ts): a publish reaches this process's subscribers at once
 * (the {@link LocalBus} inside) and every other process's through `NOTIFY kindgi_bus`, which each process hears on one
 * connection of its own, opened at start and kept for the process's life.
 *
 * - **After commit only.** Callers publish once what they announce has committed; nothing here runs inside a write.
 *   A NOTIFY inside a write transaction would hold PostgreSQL's one notification-queue lock from before its commit
 *   until the commit is flushed, so writes that notify would commit one at a time (`npx tsx bench/notify-commits.ts`:
 *   16 connections inserting a row each commit at 42-45 % of the rate without the NOTIFY).
 * - **Batched.** What is published within {@link SEND_WINDOW_MS} of the first message, and whatever is published while
 *   a send is under way, goes out in one statement (`SELECT pg_notify(…) FROM unnest($2::text[])`), one statement at a
 *   time, on the listening connection (on a pooled one while that is down). A message identical to one still waiting
 *   (same topic, same JSON) is sent once. Model deltas of one run, call and attempt waiting together are merged into
 *   one (text concatenated, each tool call's `argumentsDelta` concatenated, in order).
 * - **Under the payload limit.** A notification's payload must be shorter than 8000 bytes (UTF-8). A larger delta is
 *   split into several, its text between characters (never inside a surrogate pair) and its tool calls' arguments
 *   likewise, sent in order; nothing is dropped. Any other message that large is sent as a loss (`null`) on its topic,
 *   so the other processes' subscribers catch up from the database.
 * - **Once per process.** Each payload names the process that sent it; a process ignores its own (its subscribers had
 *   them at once).
 * - **Losses.** When the listening connection drops, it is opened again with a growing delay (100 ms to 5 s), LISTEN
 *   is sent again, and then every subscriber of this process is called with `null`: what was published meanwhile
 *   may not have been heard, and each catches up from the database.
 */
import { randomBytes } from "node:crypto";
import { databaseConfig } from "@/lib/db/config";
import { eventBus, installEventBus, LocalBus, type BusListener, type EventBus } from "@/lib/services/event-bus";
import { log } from "@/lib/log";

export const BUS_CHANNEL = "kindgi_bus";
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
export const MAX_PAYLOAD_BYTES = 7999;
/** How long the first message of a batch waits for others. */
export const SEND_WINDOW_MS = 2;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;

// ---- model deltas ----

/** A model delta as published on `delta:<runId>` (lib/models: an attempt-numbered piece of a model call's answer). */
export type BusDelta = { callIndex: number; attempt: number; text?: string; toolCalls?: { index: number; id?: string; name?: string; argumentsDelta: string }[] };

export function isBusDelta(message: unknown): message is BusDelta {
  if (!message || typeof message !== "object") return false;
  const delta = message as BusDelta;
  if (typeof delta.callIndex !== "number" || typeof delta.attempt !== "number") return false;
  if (delta.text !== undefined && typeof delta.text !== "string") return false;
  if (delta.toolCalls === undefined) return true;
  return Array.isArray(delta.toolCalls) && delta.toolCalls.every((call) => call && typeof call.index === "number" && typeof call.argumentsDelta === "string");
}

/** `later` appended to `earlier` (the same run, call and attempt): a new object, neither input is changed. */
export function mergeDeltas(earlier: BusDelta, later: BusDelta): BusDelta {
  const merged: BusDelta = { ...earlier };
  if (later.text !== undefined) merged.text = (earlier.text ?? "") + later.text;
  if (later.toolCalls?.length) {
    const calls = (earlier.toolCalls ?? []).map((call) => ({ ...call }));
    for (const call of later.toolCalls) {
      const existing = calls.find((item) => item.index === call.index);
      if (!existing) {
        calls.push({ ...call });
        continue;
      }
      existing.argumentsDelta += call.argumentsDelta;
      if (existing.id === undefined && call.id !== undefined) existing.id = call.id;
      if (existing.name === undefined && call.name !== undefined) existing.name = call.name;
    }
    merged.toolCalls = calls;
  }
  return merged;
}

/** The bytes one code point (as `for…of` yields it) takes inside a JSON string, as JSON.stringify writes it, in UTF-8. */
export function jsonCharBytes(char: string): number {
  const code = char.codePointAt(0)!;
  if (code < 0x20) return code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  // A lone surrogate is written as \uXXXX.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  return code < 0x10000 ? 3 : 4;
}

/**
 * `delta` as pieces each of which `sizeOf` measures at most `max` bytes, in order (the text first, then each tool
 * call, its id and name with its first piece): joined again, they are `delta`. Null when a piece that cannot be split
 * (a tool call's id and name) does not fit.
 */
export function splitDelta(delta: BusDelta, sizeOf: (piece: BusDelta) => number, max: number): BusDelta[] | null {
  if (sizeOf(delta) <= max) return [delta];
  const pieces: BusDelta[] = [];
  const empty = (): BusDelta => ({ callIndex: delta.callIndex, attempt: delta.attempt });
  let current = empty();
  let hasContent = false;
  const flush = () => {
    if (hasContent) pieces.push(current);
    current = empty();
    hasContent = false;
  };
  /**
   * Fills `text` into slots that `open` adds to the current piece (`open(first)` adds one and returns the function
   * that appends to it, `remove` takes it out again when nothing went into it).
   */
  const fill = (text: string, open: (first: boolean) => (chunk: string) => void, remove: () => void, keepEmpty: boolean): boolean => {
    const chars = Array.from(text);
    let at = 0;
    let first = true;
    for (;;) {
      const append = open(first);
      let room = max - sizeOf(current);
      let chunk = "";
      while (room >= 0 && at < chars.length && jsonCharBytes(chars[at]) <= room) {
        room -= jsonCharBytes(chars[at]);
        chunk += chars[at];
        at += 1;
      }
      if (room < 0 || (!chunk && !(first && keepEmpty))) {
        // Not even the slot, or not one more character, fits beside what this piece holds: the next piece.
        remove();
        if (!hasContent) return false;
        flush();
        continue;
      }
      append(chunk);
      hasContent = true;
      first = false;
      if (at >= chars.length) return true;
      flush();
    }
  };
  if (delta.text) {
    const ok = fill(
      delta.text,
      () => {
        current.text = "";
        return (chunk) => (current.text = chunk);
      },
      () => delete current.text,
      false,
    );
    if (!ok) return null;
  }
  for (const call of delta.toolCalls ?? []) {
    const ok = fill(
      call.argumentsDelta,
      (first) => {
        const slot: NonNullable<BusDelta["toolCalls"]>[number] = { index: call.index, ...(first && call.id !== undefined ? { id: call.id } : {}), ...(first && call.name !== undefined ? { name: call.name } : {}), argumentsDelta: "" };
        (current.toolCalls ??= []).push(slot);
        return (chunk) => (slot.argumentsDelta = chunk);
      },
      () => {
        current.toolCalls!.pop();
        if (!current.toolCalls!.length) delete current.toolCalls;
      },
      true,
    );
    if (!ok) return null;
  }
  flush();
  return pieces;
}

// ---- the transport ----

/** What the bus needs of a `pg` client (a `pg.Client` is one; tests pass others). */
export type BusClient = {
  connect(): Promise<unknown>;
  query(query: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]): Promise<unknown>;
  end(): Promise<unknown>;
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", listener: (error?: Error) => void): unknown;
};

export type PostgresBusOptions = {
  /** A new client for the listening connection (not yet connected). */
  createClient: () => BusClient | Promise<BusClient>;
  /** This process's in-process bus: its subscribers stay subscribed (a transport installed after they subscribed). */
  local?: LocalBus;
  /** Sends payloads when the listening connection is down (on a pooled connection). */
  fallbackSend?: (channel: string, payloads: string[]) => Promise<void>;
  channel?: string;
  windowMs?: number;
  log?: (line: string) => void;
};

type Pending = { topic: string; message: unknown; json?: string };

const SEND_SQL = "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload";
/** The start of every payload: `["<origin>",<n>,"<topic>"`. */
const HEADER = /^\["([^"\\]*)",\d+,"((?:[^"\\]|\\.)*)"/;
const MARK = Symbol.for("kindgi.event-bus.postgres");

export class PostgresBus implements EventBus {
  /** This process, as its payloads name it. */
  readonly origin = randomBytes(6).toString("base64url");
  /** Resolves once the listening connection has sent its first LISTEN. */
  readonly ready: Promise<void>;
  readonly [MARK] = true;
  private readonly local: LocalBus;
  private readonly channel: string;
  private readonly windowMs: number;
  private readonly log: (line: string) => void;
  private client: BusClient | null = null;
  private connectedOnce = false;
  /** The listening connection was lost and is not back yet (logged once). */
  private outage = false;
  private closed = false;
  private retryDelay = RECONNECT_FIRST_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private markReady!: () => void;
  private pending: Pending[] = [];
  /** The last waiting delta of each delta topic (a later one of the same call and attempt merges into it). */
  private lastDelta = new Map<string, Pending>();
  private waitingKeys = new Set<string>();
  private windowTimer: NodeJS.Timeout | null = null;
  private sending = false;
  private sent = 0;
  /** When a message from another process was last heard (ms since the epoch), or null (metrics: the bus's lag). */
  lastHeardAt: number | null = null;

  constructor(private readonly options: PostgresBusOptions) {
    this.local = options.local ?? new LocalBus();
    this.channel = options.channel ?? BUS_CHANNEL;
    this.windowMs = options.windowMs ?? SEND_WINDOW_MS;
    this.log = options.log ?? ((line) => log.warn(line));
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    void this.connect();
  }

  publish(topic: string, message: unknown): void {
    this.local.deliver(topic, message);
    if (this.closed) return;
    if (topic.startsWith("delta:") && isBusDelta(message)) {
      const last = this.lastDelta.get(topic);
      const earlier = last?.message as BusDelta | undefined;
      // Merged only into the last message waiting, so the order of what is sent (a run's deltas, then its commit's
      // announcement) stays the order it was published in.
      if (last && this.pending[this.pending.length - 1] === last && earlier!.callIndex === message.callIndex && earlier!.attempt === message.attempt) last.message = mergeDeltas(earlier!, message);
      else {
        const entry = { topic, message };
        this.pending.push(entry);
        this.lastDelta.set(topic, entry);
      }
    } else {
      let json: string | undefined;
      try {
        json = JSON.stringify(message ?? null);
      } catch (error) {
        this.log(`a message on ${topic} cannot be sent to the other servers: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      const key = `${topic}\u0000${json}`;
      if (this.waitingKeys.has(key)) return;
      this.waitingKeys.add(key);
      this.pending.push({ topic, message, json });
    }
    this.schedule();
  }

  subscribe(topic: string, listener: BusListener): () => void {
    return this.local.subscribe(topic, listener);
  }

  subscribePrefix(prefix: string, listener: (topic: string, message: unknown | null) => void): () => void {
    return this.local.subscribePrefix(prefix, listener);
  }

  /** Stops listening and sending (tests; a process's bus lives as long as the process). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.windowTimer) clearTimeout(this.windowTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  /** Whether the listening connection is up (tests, health). */
  get listening(): boolean {
    return this.client !== null;
  }

  // ---- sending ----

  private schedule(): void {
    if (this.sending || this.windowTimer) return;
    this.windowTimer = setTimeout(() => {
      this.windowTimer = null;
      void this.flush();
    }, this.windowMs);
    this.windowTimer.unref?.();
  }

  /** The payloads of what waits, in order. */
  private takePayloads(): string[] {
    const batch = this.pending;
    this.pending = [];
    this.lastDelta.clear();
    this.waitingKeys.clear();
    const payloads: string[] = [];
    const header = (topic: string) => JSON.stringify([this.origin, ++this.sent, topic]).slice(0, -1);
    const loss = (topic: string) => `${header(topic)}]`;
    for (const entry of batch) {
      if (entry.json === undefined) {
        // A delta: measured with the longest sequence number a payload can carry.
        const sizeOf = (piece: BusDelta) => Buffer.byteLength(JSON.stringify([this.origin, Number.MAX_SAFE_INTEGER, entry.topic, piece]));
        const pieces = splitDelta(entry.message as BusDelta, sizeOf, MAX_PAYLOAD_BYTES);
        if (!pieces) {
          this.log(`a delta on ${entry.topic} cannot be split under ${MAX_PAYLOAD_BYTES + 1} bytes; the other servers are told of a loss`);
          payloads.push(loss(entry.topic));
          continue;
        }
        for (const piece of pieces) payloads.push(`${header(entry.topic)},${JSON.stringify(piece)}]`);
        continue;
      }
      const payload = `${header(entry.topic)},${entry.json}]`;
      if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) payloads.push(payload);
      else {
        this.log(`a message on ${entry.topic} is longer than a notification may be; the other servers are told of a loss`);
        payloads.push(loss(entry.topic));
      }
    }
    return payloads;
  }

  private async flush(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.pending.length && !this.closed) {
        const payloads = this.takePayloads();
        try {
          await this.send(payloads);
        } catch (error) {
          // The other servers' safety polls (and their caches' checks) cover what they did not hear.
          this.log(`could not tell the other servers of ${payloads.length} event(s): ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } finally {
      this.sending = false;
    }
  }

  private async send(payloads: string[]): Promise<void> {
    const client = this.client;
    if (client) {
      await client.query({ name: "kindgi_bus_send", text: SEND_SQL, values: [this.channel, payloads] });
      return;
    }
    if (!this.options.fallbackSend) throw new Error("the listening connection is down");
    await this.options.fallbackSend(this.channel, payloads);
  }

  // ---- listening ----

  private receive(payload: string | undefined): void {
    if (!payload) return;
    const header = HEADER.exec(payload);
    if (!header || header[1] === this.origin) return;
    this.lastHeardAt = Date.now();
    const topic = header[2].includes("\\") ? (JSON.parse(`"${header[2]}"`) as string) : header[2];
    // What nobody here hears is not parsed (every delta is: each process keeps the text of the calls in flight).
    if (!this.local.hasSubscribers(topic)) return;
    let parsed: unknown[];
    try {
      parsed = JSON.parse(payload) as unknown[];
    } catch {
      return;
    }
    this.local.deliver(topic, parsed.length > 3 ? parsed[3] : null);
  }

  /** Opens the listening connection again after a delay that doubles with each failure (up to 5 s). */
  private reconnectLater(): void {
    if (this.closed) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(delay * 2, RECONNECT_MAX_MS);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref?.();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: BusClient;
    try {
      client = await this.options.createClient();
    } catch (error) {
      this.log(`the event bus cannot open its listening connection: ${error instanceof Error ? error.message : String(error)}`);
      this.reconnectLater();
      return;
    }
    let down = false;
    const onDown = (error?: Error) => {
      if (down) return;
      down = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => {});
      if (this.closed) return;
      // Once per outage: the first loss of a connection that was listening.
      if (this.connectedOnce && !this.outage) this.log(`the event bus's listening connection was lost${error ? ` (${error.message})` : ""}; reconnecting`);
      if (this.connectedOnce) this.outage = true;
      this.reconnectLater();
    };
    client.on("error", onDown);
    client.on("end", onDown);
    client.on("notification", (message) => {
      if (message.channel === this.channel) this.receive(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      onDown(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (down || this.closed) {
      await client.end().catch(() => {});
      return;
    }
    // The connection must not keep the process alive on its own.
    (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    this.client = client;
    this.retryDelay = RECONNECT_FIRST_MS;
    const reconnected = this.connectedOnce;
    this.connectedOnce = true;
    this.markReady();
    // Listening again: whatever was published while it was down may not have been heard.
    if (reconnected) {
      if (this.outage) this.log("the event bus listens again; its subscribers catch up from the database");
      this.outage = false;
      this.local.deliverLoss();
    }
    if (this.pending.length) this.schedule();
  }
}

type MarkedBus = EventBus & { [MARK]?: true; ready?: Promise<void> };

/** The in-process bus a transport keeps (recognised by shape: Next bundles this module more than once). */
function asLocalBus(bus: EventBus): LocalBus | undefined {
  const candidate = bus as Partial<LocalBus>;
  return typeof candidate.deliver === "function" && typeof candidate.deliverLoss === "function" && typeof candidate.hasSubscribers === "function" ? (bus as LocalBus) : undefined;
}

/**
 * On PostgreSQL, makes the process's bus ({@link eventBus}) the PostgreSQL transport, keeping the in-process bus and
 * its subscribers; resolves once it listens (at once when it did already; on PGlite, at once: the bus stays in-process).
 */
export function startEventBus(): Promise<void> {
  const config = databaseConfig();
  if (config.kind !== "postgresql") return Promise.resolve();
  const current = eventBus() as MarkedBus;
  if (current[MARK]) return current.ready ?? Promise.resolve();
  const url = config.url;
  const bus = new PostgresBus({
    local: asLocalBus(current),
    createClient: async () => {
      const pg = (await import("pg")).default;
      // Named, so that an operator finds it in pg_stat_activity.
      return new pg.Client({ connectionString: url, application_name: "kindgi event bus" }) as unknown as BusClient;
    },
    fallbackSend: async (channel, payloads) => {
      const { getRawQuery } = await import("@/lib/db");
      const raw = await getRawQuery();
      await raw(`/* kindgi:bus send */ SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload`, [channel, payloads]);
    },
  });
  installEventBus(bus);
  return bus.ready;
}

/**
 * The process's bus as readiness and metrics see it: `listening` is whether the PostgreSQL transport's LISTEN connection
 * is up (always true in-process: PGlite), `lastHeardAt` when another process's message was last heard (null: none yet,
 * or in-process).
 */
export function busState(): { transport: "postgresql" | "in-process"; listening: boolean; lastHeardAt: number | null } {
  const bus = eventBus() as MarkedBus & { listening?: boolean; lastHeardAt?: number | null };
  if (!bus[MARK]) return { transport: "in-process", listening: databaseConfig().kind !== "postgresql", lastHeardAt: null };
  return { transport: "postgresql", listening: bus.listening === true, lastHeardAt: bus.lastHeardAt ?? null };
}
