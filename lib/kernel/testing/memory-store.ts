/**
 * A KernelStore in memory, for tests of the turn loop and the worker without a database. It keeps the contract of
 * dbKernelStore (lib/services/kernel-store.ts): a commit is all or nothing and happens only while the writer holds the lease
 * and the run is not finished; commits of one run queue behind each other (the row lock), and a run inside a
 * commit is skipped by `claim` (FOR UPDATE SKIP LOCKED); sequence numbers have no gaps; a finished status frees the
 * lease. Leases expire by the store's clock, which a test can move. Event data is stored as JSON, as in a jsonb
 * column, so what the kernel reads back is what the database would give it.
 */
import { randomUUID } from "node:crypto";
import { releasesLease, type CommitEffects, type CommitPlan, type KernelRun, type KernelStore, type KernelTx, type RunPatch } from "@/lib/kernel/store";
import { isRunnableStatus, isTerminalStatus, type InvocationPlan, type JournalEvent, type NewEvent, type RunCreatedData, type RunKind, type RunStatus } from "@/lib/kernel/types";

/** A clock a test controls: leases expire and deadlines pass only when the test moves it. */
export type ManualClock = { now(): Date; advance(ms: number): void; set(at: Date): void };

/** A clock standing at `start` until it is moved. */
export function createManualClock(start: Date = new Date("2030-01-01T00:00:00.000Z")): ManualClock {
  let at = start.getTime();
  return {
    now: () => new Date(at),
    advance(ms) {
      at += ms;
    },
    set(date) {
      at = date.getTime();
    },
  };
}

/** The run row, with every column dbKernelStore writes. */
export type MemoryRun = KernelRun & {
  kind: RunKind;
  toolId: string | null;
  toolVersion: string | null;
  userMessage: string | null;
  parameters: Record<string, unknown> | null;
  arguments: Record<string, unknown> | null;
  resolvedTools: unknown;
  providerId: string | null;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  modelCalls: number;
  toolCalls: number;
  output: unknown;
  failure: unknown;
  flags: unknown;
  retrievedFacts: unknown;
  leaseExpiresAt: Date | null;
  createdAt: Date;
  finishedAt: Date | null;
};

export type MemoryConversationMessage = { seq: number; role: "user" | "assistant"; content: string; runId: string | null };

export type CreateMemoryRunInput = (
  | {
      agent: { id: string; version: string };
      userMessage: string;
      parameters?: Record<string, unknown>;
      /** Must have been created with createConversation. */
      conversationId?: string | null;
    }
  | {
      /** A tool invocation (as POST /v1/tools/{toolId}/versions/{version}/invoke writes it). */
      invocation: InvocationPlan;
    }
) & {
  tenantId?: string;
  projectId?: string;
  createdBy?: string;
  attended?: boolean;
  /** The worker the run is leased to at creation (as POST /v1/runs leases it to the process's worker); null: free. */
  owner: string | null;
  /** Default 30000. */
  leaseMs?: number;
};

export type MemoryStore = KernelStore & {
  readonly clock: Pick<ManualClock, "now">;
  /** A pending run with its run-created event (seq 1), as POST /v1/runs (or a tool invocation) writes it. */
  createRun(input: CreateMemoryRunInput): MemoryRun;
  /** A conversation, optionally with earlier messages (numbered from 1). */
  createConversation(messages?: { role: "user" | "assistant"; content: string }[]): string;
  /** A copy of the run row; throws when there is none. */
  run(runId: string): MemoryRun;
  /** Copies of every event of the run, in order. */
  events(runId: string): JournalEvent[];
  /** Copies of the conversation's messages, in order; throws when there is none. */
  conversationMessages(conversationId: string): MemoryConversationMessage[];
  /**
   * Ends the run as cancelled with its run-cancelled event, as POST /v1/runs/{id}/cancel does (after any commit in
   * progress, which holds the row). False when the run had already finished.
   */
  cancel(runId: string, by: string): Promise<boolean>;
};

/**
 * What a commit's plan receives as its transaction. There is no database behind this store: a plan that touches
 * the transaction (a native tool's write) is a test setup error, reported as such.
 */
const noTransaction = new Proxy(
  {},
  {
    get(_target, property) {
      if (property === "then") return undefined;
      throw new Error(`the memory kernel store has no database transaction (a commit plan used tx.${String(property)})`);
    },
  },
) as KernelTx;

/** A JSON value as a jsonb column stores it (undefined properties dropped, dates as strings). */
function asJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function copyRun(run: MemoryRun): MemoryRun {
  return {
    ...run,
    parameters: asJson(run.parameters),
    arguments: asJson(run.arguments),
    resolvedTools: asJson(run.resolvedTools),
    output: asJson(run.output),
    failure: asJson(run.failure),
    flags: asJson(run.flags),
    retrievedFacts: asJson(run.retrievedFacts),
  };
}

function copyEvent(event: JournalEvent): JournalEvent {
  return { ...event, data: asJson(event.data) } as JournalEvent;
}

/** The run row after `patch`, exactly as the append statement in lib/services/kernel-store.ts changes it. */
function patched(run: MemoryRun, patch: RunPatch | undefined, eventCount: number): MemoryRun {
  const next: MemoryRun = { ...run, lastSeq: run.lastSeq + eventCount };
  if (!patch) return next;
  if (patch.status) next.status = patch.status;
  if (patch.startedAt) next.startedAt = patch.startedAt;
  if (patch.finishedAt) next.finishedAt = patch.finishedAt;
  if (patch.resolvedTools !== undefined) next.resolvedTools = asJson(patch.resolvedTools);
  if (patch.providerId) next.providerId = patch.providerId;
  if (patch.model) next.model = patch.model;
  if (patch.addUsage) {
    next.inputTokens += patch.addUsage.inputTokens;
    next.outputTokens += patch.addUsage.outputTokens;
    next.costUsd += patch.addUsage.costUsd;
    next.modelCalls += patch.addUsage.modelCalls;
  }
  if (patch.addToolCalls) next.toolCalls += patch.addToolCalls;
  if (patch.output !== undefined) next.output = asJson(patch.output);
  if (patch.failure !== undefined) next.failure = asJson(patch.failure);
  if (patch.flags !== undefined) next.flags = asJson(patch.flags);
  if (patch.retrievedFacts !== undefined) next.retrievedFacts = asJson(patch.retrievedFacts);
  if (releasesLease(patch.status)) {
    next.leaseOwner = null;
    next.leaseExpiresAt = null;
  }
  return next;
}

/** A KernelStore in memory; `clock` decides lease expiry and event times (default: the real clock). */
export function createMemoryStore(options: { clock?: Pick<ManualClock, "now"> } = {}): MemoryStore {
  const clock = options.clock ?? { now: () => new Date() };
  const runs = new Map<string, MemoryRun>();
  const journals = new Map<string, JournalEvent[]>();
  const conversations = new Map<string, MemoryConversationMessage[]>();
  /** The tail of each run's queue of row-holding operations, and the runs inside one now. */
  const tails = new Map<string, Promise<void>>();
  const held = new Set<string>();

  /** Runs `work` holding the run's row: one at a time per run, in call order. */
  function holdingRow<T>(runId: string, work: () => Promise<T>): Promise<T> {
    const previous = tails.get(runId) ?? Promise.resolve();
    const result = previous.then(async () => {
      held.add(runId);
      try {
        return await work();
      } finally {
        held.delete(runId);
      }
    });
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(runId, tail);
    void tail.then(() => {
      if (tails.get(runId) === tail) tails.delete(runId);
    });
    return result;
  }

  function runOf(runId: string): MemoryRun {
    const run = runs.get(runId);
    if (!run) throw new Error(`memory store: there is no run ${runId}`);
    return run;
  }

  function numbered(runId: string, first: number, events: readonly NewEvent[]): JournalEvent[] {
    const createdAt = clock.now().toISOString();
    return events.map((event, i) => ({ seq: first + i, type: event.type, data: asJson(event.data), createdAt }) as JournalEvent);
  }

  function conversationAppend(effects: CommitEffects | undefined): (() => void) | null {
    const input = effects?.conversation;
    if (!input) return null;
    const messages = conversations.get(input.id);
    // The database's update of a missing conversation throws, and the whole commit rolls back.
    if (!messages) throw new Error(`memory store: there is no conversation ${input.id}`);
    const added = input.messages.map((message, i) => ({ seq: messages.length + i + 1, role: message.role, content: message.content, runId: input.runId }));
    return () => messages.push(...added);
  }

  const store: MemoryStore = {
    clock,

    async loadRun(runId) {
      const run = runs.get(runId);
      if (!run) return null;
      const { id, tenantId, projectId, agentId, agentVersion, conversationId, status, createdBy, attended, startedAt, leaseOwner, lastSeq } = run;
      return { id, tenantId, projectId, agentId, agentVersion, conversationId, status, createdBy, attended, startedAt, leaseOwner, lastSeq };
    },

    async loadEvents(runId, afterSeq = 0, limit) {
      const events = (journals.get(runId) ?? []).filter((event) => event.seq > afterSeq);
      return (limit ? events.slice(0, limit) : events).map(copyEvent);
    },

    async commit(runId, owner, plan) {
      return (await store.append(runId, owner, plan))?.seqs ?? null;
    },

    append(runId, owner, plan) {
      return holdingRow(runId, async () => {
        const run = runs.get(runId);
        if (!run || run.leaseOwner !== owner || isTerminalStatus(run.status)) return null;
        const { events, patch, effects }: CommitPlan = typeof plan === "function" ? await plan(noTransaction) : plan;
        // Everything that can fail is done before anything is written.
        const current = runOf(runId);
        const written = numbered(runId, current.lastSeq + 1, events);
        const appendMessages = conversationAppend(effects);
        const next = patched(current, patch, events.length);
        runs.set(runId, next);
        (journals.get(runId) as JournalEvent[]).push(...written);
        appendMessages?.();
        return { seqs: written.map((event) => event.seq), createdAt: clock.now(), row: copyRun(next) };
      });
    },

    async claim(owner, leaseMs, limit) {
      const now = clock.now().getTime();
      const free = [...runs.values()]
        .filter((run) => isRunnableStatus(run.status) && (run.leaseExpiresAt === null || run.leaseExpiresAt.getTime() < now) && !held.has(run.id))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .slice(0, limit);
      return free.map((run) => {
        runs.set(run.id, { ...run, leaseOwner: owner, leaseExpiresAt: new Date(now + leaseMs) });
        return { id: run.id, previousOwner: run.leaseOwner };
      });
    },

    renewLease(runId, owner, leaseMs) {
      return holdingRow(runId, async () => {
        const run = runs.get(runId);
        if (!run || run.leaseOwner !== owner || isTerminalStatus(run.status)) return false;
        runs.set(runId, { ...run, leaseExpiresAt: new Date(clock.now().getTime() + leaseMs) });
        return true;
      });
    },

    releaseLease(runId, owner) {
      return holdingRow(runId, async () => {
        const run = runs.get(runId);
        if (run && run.leaseOwner === owner) runs.set(runId, { ...run, leaseOwner: null, leaseExpiresAt: null });
      });
    },

    async freeForeignLeases(owner) {
      let count = 0;
      for (const run of runs.values()) {
        // As SQL's `<>`: a run without an owner does not match.
        if (!isRunnableStatus(run.status) || run.leaseOwner === null || run.leaseOwner === owner) continue;
        runs.set(run.id, { ...run, leaseExpiresAt: null });
        count += 1;
      }
      return count;
    },

    createRun(input) {
      const invocation = "invocation" in input ? input.invocation : null;
      const turn = "invocation" in input ? null : input;
      const conversationId = turn?.conversationId ?? null;
      if (conversationId !== null && !conversations.has(conversationId)) throw new Error(`memory store: there is no conversation ${conversationId}`);
      const now = clock.now();
      const id = randomUUID();
      const parameters = turn ? (turn.parameters ?? {}) : null;
      const attended = input.attended ?? true;
      const run: MemoryRun = {
        id,
        tenantId: input.tenantId ?? randomUUID(),
        projectId: input.projectId ?? randomUUID(),
        kind: invocation ? "tool-invocation" : "agent-turn",
        agentId: turn?.agent.id ?? null,
        agentVersion: turn?.agent.version ?? null,
        toolId: invocation?.toolId ?? null,
        toolVersion: invocation?.version ?? null,
        conversationId,
        status: "pending" satisfies RunStatus,
        createdBy: input.createdBy ?? randomUUID(),
        attended,
        startedAt: null,
        leaseOwner: input.owner,
        lastSeq: 1,
        userMessage: turn?.userMessage ?? null,
        parameters,
        arguments: invocation ? asJson(invocation.arguments) : null,
        resolvedTools: null,
        providerId: null,
        model: null,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        modelCalls: 0,
        toolCalls: 0,
        output: null,
        failure: null,
        flags: [],
        retrievedFacts: [],
        leaseExpiresAt: input.owner === null ? null : new Date(now.getTime() + (input.leaseMs ?? 30_000)),
        createdAt: now,
        finishedAt: null,
      };
      const created: RunCreatedData = turn ? { agent: turn.agent, conversationId, userMessage: turn.userMessage, parameters: parameters ?? {}, attended } : { invocation: invocation as InvocationPlan, attended };
      runs.set(id, run);
      journals.set(id, numbered(id, 1, [{ type: "run-created", data: created }]));
      return copyRun(run);
    },

    createConversation(messages = []) {
      const id = randomUUID();
      conversations.set(id, messages.map((message, i) => ({ seq: i + 1, role: message.role, content: message.content, runId: null })));
      return id;
    },

    run: (runId) => copyRun(runOf(runId)),

    events: (runId) => (journals.get(runId) ?? []).map(copyEvent),

    conversationMessages(conversationId) {
      const messages = conversations.get(conversationId);
      if (!messages) throw new Error(`memory store: there is no conversation ${conversationId}`);
      return messages.map((message) => ({ ...message }));
    },

    cancel(runId, by) {
      return holdingRow(runId, async () => {
        const run = runOf(runId);
        if (isTerminalStatus(run.status)) return false;
        const next: MemoryRun = { ...run, status: "cancelled", finishedAt: clock.now(), leaseOwner: null, leaseExpiresAt: null, lastSeq: run.lastSeq + 1 };
        runs.set(runId, next);
        (journals.get(runId) as JournalEvent[]).push(...numbered(runId, next.lastSeq, [{ type: "run-cancelled", data: { by } }]));
        return true;
      });
    },
  };
  return store;
}
