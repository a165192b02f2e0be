/**
 * The one event bus of the deployment: everything live — journaled run events (as "the run has new events"), model
 * deltas, the approval feed, decision wake-ups, cache generations — is published on a topic and heard by every
 * subscriber of that topic, in this process at once and, on PostgreSQL, in every replica through `LISTEN/NOTIFY`.
 * On the embedded database (PGlite) the process is the only one, and the bus is in-process.
 *
 * Topics (a message is JSON):
 * - `run:<runId>`        the run's journal grew (`{lastSeq?}`), or it settled;
 * - `delta:<runId>`      a model delta of the run (`RunDelta`, lib/services/live-deltas.ts);
 * - `tool:<runId>`       a tool call's log line or progress (lib/services/live-tool-events.ts);
 * - `approvals:<tenantId>` the tenant's approval feed grew;
 * - `generation`         a tenant's cached values are stale (lib/services/tenant-generation.ts).
 *
 * A subscriber is called with `null` when messages may have been lost (the replica's listening connection dropped
 * and came back): it catches up from the database.
 */
import { EventEmitter } from "node:events";
import { log } from "@/lib/log";

export type BusListener = (message: unknown | null) => void;

export interface EventBus {
  /** Delivers `message` to the topic's subscribers: in this process synchronously, elsewhere as soon as it can. */
  publish(topic: string, message: unknown): void;
  /** Hears the topic's messages (and `null` after a possible loss) until the returned function is called. */
  subscribe(topic: string, listener: BusListener): () => void;
  /** Hears every topic starting with `prefix` (e.g. every run's deltas, for the snapshots late clients get). */
  subscribePrefix(prefix: string, listener: (topic: string, message: unknown | null) => void): () => void;
}

/** The in-process part every bus has: synchronous delivery to this process's subscribers. */
export class LocalBus implements EventBus {
  private readonly emitter = new EventEmitter();
  /** Topics with subscribers, for a transport that tells every subscriber of a possible loss. */
  private readonly topics = new Map<string, number>();
  private readonly prefixes: { prefix: string; listener: (topic: string, message: unknown | null) => void }[] = [];

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(topic: string, message: unknown): void {
    this.deliver(topic, message);
  }

  /** Delivers to this process's subscribers only (a transport calls it with what other processes published). */
  deliver(topic: string, message: unknown | null): void {
    for (const { prefix, listener } of this.prefixes) {
      if (!topic.startsWith(prefix)) continue;
      try {
        listener(topic, message);
      } catch (error) {
        log.error("an event bus listener failed", { topic: `${prefix}*`, err: error });
      }
    }
    this.emitter.emit(topic, message);
  }

  /** Whether `topic` has a subscriber in this process, by name or by prefix (a transport need not decode what nobody hears). */
  hasSubscribers(topic: string): boolean {
    return this.topics.has(topic) || this.prefixes.some(({ prefix }) => topic.startsWith(prefix));
  }

  /** Tells every subscriber that messages may have been lost. */
  deliverLoss(): void {
    for (const { prefix, listener } of this.prefixes) listener(prefix, null);
    for (const topic of [...this.topics.keys()]) this.emitter.emit(topic, null);
  }

  subscribePrefix(prefix: string, listener: (topic: string, message: unknown | null) => void): () => void {
    const entry = { prefix, listener };
    this.prefixes.push(entry);
    return () => {
      const at = this.prefixes.indexOf(entry);
      if (at >= 0) this.prefixes.splice(at, 1);
    };
  }

  subscribe(topic: string, listener: BusListener): () => void {
    const safe: BusListener = (message) => {
      try {
        listener(message);
      } catch (error) {
        log.error("an event bus listener failed", { topic, err: error });
      }
    };
    this.emitter.on(topic, safe);
    this.topics.set(topic, (this.topics.get(topic) ?? 0) + 1);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.emitter.off(topic, safe);
      const left = (this.topics.get(topic) ?? 1) - 1;
      if (left > 0) this.topics.set(topic, left);
      else this.topics.delete(topic);
    };
  }
}

const holder = globalThis as unknown as { kindgiEventBus?: EventBus };

/**
 * The process's bus (kept on `globalThis`: Next bundles the instrumentation hook and the route handlers separately,
 * and both must use the same one). In-process until a transport is installed ({@link installEventBus}).
 */
export function eventBus(): EventBus {
  holder.kindgiEventBus ??= new LocalBus();
  return holder.kindgiEventBus;
}

/** Replaces the process's bus (the PostgreSQL transport at start; tests). */
export function installEventBus(bus: EventBus): void {
  holder.kindgiEventBus = bus;
}

/**
 * A subscription that remembers whether anything arrived: subscribe first, read the database, then `wait` — a message
 * published between the read and the wait is not missed. `close` when done.
 */
export function wakeups(topics: string | string[]): { wait(ms: number, signal?: AbortSignal): Promise<void>; close(): void } {
  let pending = false;
  let wake: (() => void) | null = null;
  const listener = () => {
    pending = true;
    wake?.();
  };
  const unsubscribes = (Array.isArray(topics) ? topics : [topics]).map((topic) => eventBus().subscribe(topic, listener));
  return {
    wait(ms, signal) {
      if (pending || signal?.aborted) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          wake = null;
          pending = false;
          resolve();
        };
        const timer = setTimeout(done, ms);
        wake = done;
        signal?.addEventListener("abort", done);
      });
    },
    close() {
      for (const unsubscribe of unsubscribes) unsubscribe();
      wake?.();
    },
  };
}
