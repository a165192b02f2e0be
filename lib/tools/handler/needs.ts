/**
 * The `needs` slots a pack handler receives by name in `context.needs`: `tenant`, `project`, `run` and
 * `conversation` as `{id}`, and `memory:<type>` as a reader of the project's facts of that type. A required slot
 * (a `needs` entry without `optional: true`) the runtime cannot provide — an unknown name, or `conversation` in a run
 * without one — fails the call before the handler runs; an optional one is simply absent.
 */
import type { Need } from "@/lib/tools/manifest-schema";

/** A fact as a `memory:<type>` slot answers it. */
export type HandlerFact = { id: string; type: string; content: string; createdAt: string };

/** `context.needs["memory:<type>"]`: the project's facts of that type, by keywords (best match first) or newest first. */
export interface HandlerMemoryReader {
  search(query?: string, options?: { limit?: number }): Promise<HandlerFact[]>;
}

/** What the call's run offers for the slots: its ids, and a reader of its project's facts. */
export type NeedsSource = {
  tenantId: string;
  projectId: string;
  runId: string;
  /** Null when the run has no conversation. */
  conversationId: string | null;
  readFacts(type: string, query: { text?: string; limit?: number }): Promise<HandlerFact[]>;
};

/**
 * The slots of one call as plain data, the same at every sandbox level: the id slots by name, and the memory slots'
 * fact types by slot name (their readers are built where the handler runs).
 */
export type NeedsData = { ids: Record<string, { id: string }>; memory: Record<string, string> };

const MEMORY_SLOT = /^memory:(.+)$/;

/** The declared slots the source can fill, or the names of the required ones it cannot. */
export function resolveNeeds(needs: readonly Need[] | undefined, source: NeedsSource | undefined): { ok: true; data: NeedsData } | { ok: false; unavailable: string[] } {
  const data: NeedsData = { ids: {}, memory: {} };
  const unavailable: string[] = [];
  for (const need of needs ?? []) {
    const id = source ? idSlot(need.name, source) : undefined;
    const memoryType = source ? MEMORY_SLOT.exec(need.name)?.[1] : undefined;
    if (id) data.ids[need.name] = { id };
    else if (memoryType) data.memory[need.name] = memoryType;
    else if (need.optional !== true) unavailable.push(need.name);
  }
  return unavailable.length ? { ok: false, unavailable: [...new Set(unavailable)] } : { ok: true, data };
}

function idSlot(name: string, source: NeedsSource): string | undefined {
  switch (name) {
    case "tenant":
      return source.tenantId;
    case "project":
      return source.projectId;
    case "run":
      return source.runId;
    case "conversation":
      return source.conversationId ?? undefined;
    default:
      return undefined;
  }
}

/** `context.needs` over `data`, each memory slot reading through `read` (in process, or over a sandbox's channel). */
export function needsOf(data: NeedsData, read: (type: string, query: { text?: string; limit?: number }) => Promise<HandlerFact[]>): Readonly<Record<string, unknown>> {
  const slots: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data.ids)) slots[name] = Object.freeze({ ...value });
  for (const [name, type] of Object.entries(data.memory)) slots[name] = Object.freeze({ search: (query?: string, options?: { limit?: number }) => read(type, memoryQuery(query, options)) } satisfies HandlerMemoryReader);
  return Object.freeze(slots);
}

/** A reader's arguments as a query: a string query and a numeric limit, anything else left out. */
export function memoryQuery(query: unknown, options: unknown): { text?: string; limit?: number } {
  const limit = options && typeof options === "object" ? (options as { limit?: unknown }).limit : undefined;
  return { ...(typeof query === "string" ? { text: query } : {}), ...(typeof limit === "number" ? { limit } : {}) };
}
