/**
 * Runs: one turn of an agent, started over the API and executed by the kernel. `POST /v1/runs` checks what can be
 * checked before anything runs (the agent version, the conversation, the parameters), writes the run and its
 * first journal event, and hands it to this process's kernel worker; with `wait` it answers once the run is
 * settled (completed, failed, cancelled or suspended).
 */
import { randomUUID } from "node:crypto";
import type { Run } from "@/lib/generated/prisma/client";
import { getDb } from "@/lib/db";
import { AppError, notFound } from "@/lib/errors";
import { checkParameters } from "@/lib/agents/parameters";
import { type Page, toPage } from "@/lib/pagination";
import { type Actor, projectFilter, requireWrite } from "@/lib/services/actor";
import { cached } from "@/lib/services/tenant-generation";
import { activeAgentVersion, findConversation, newestFirstAfter } from "@/lib/services/conversations";
import { announceRun, getKernel } from "@/lib/services/kernel";
import { eventBus, wakeups } from "@/lib/services/event-bus";
import { isRunDelta, liveSnapshot, trackDeltas, type LiveDelta } from "@/lib/services/live-deltas";
import { withdrawOpenInTx } from "@/lib/services/approvals";
import { isAttendedOrigin, originOf, type RunOrigin, type RunTrigger } from "@/lib/services/run-origin";
import { dbKernelStore, insertRun } from "@/lib/services/kernel-store";
import { traceRunEnded } from "@/lib/services/tracing";
import { dbKernelEnvironment } from "@/lib/services/kernel-environment";
import type { KernelRun } from "@/lib/kernel/store";
import { planTurnStart, type TurnSession } from "@/lib/kernel/turn";
import { asksForSession } from "@/lib/kernel/approval-policy";
import { renderPreview } from "@/lib/agents/parameters";
import { isRouted } from "@/lib/models/router";
import type { ModelProvider } from "@/lib/models/provider";
import { DEFAULT_MAX_WALL_MS } from "@/lib/kernel/journal";
import { isSettledStatus, isTerminalEvent, isTerminalStatus, type JournalEvent, type NewEvent, type RunKind, type RunStatus, type TurnCreatedData } from "@/lib/kernel/types";

export type RunView = {
  id: string;
  /** agent-turn, or tool-invocation (one call of one tool version, no agent). */
  kind: RunKind;
  status: RunStatus;
  projectId: string;
  /** Null for a tool invocation. */
  agent: { id: string; version: string } | null;
  /** The tool version a tool invocation calls; null for an agent turn. */
  tool: { id: string; version: string } | null;
  conversationId: string | null;
  attended: boolean;
  createdBy: string;
  /** What started the run (null on runs written before it was recorded). */
  origin: RunOrigin | null;
  /** Tools the trigger of an unattended run lets run without asking. */
  toolsAllowedUnattended: string[];
  input: { userMessage: string; parameters: Record<string, unknown> } | { arguments: Record<string, unknown> };
  resolvedTools: { id: string; range: string; version: string }[] | null;
  provider: { id: string; model: string } | null;
  usage: { inputTokens: number; outputTokens: number; modelCalls: number; toolCalls: number };
  costUsd: number;
  output: unknown;
  failure: { code: string; message: string; details?: Record<string, unknown> } | null;
  flags: unknown[];
  retrievedFacts: unknown[];
  lastSeq: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
};

export function runView(row: Run): RunView {
  const isInvocation = row.kind === "tool-invocation";
  return {
    id: row.id,
    kind: isInvocation ? "tool-invocation" : "agent-turn",
    status: row.status as RunStatus,
    projectId: row.projectId,
    agent: row.agentId && row.agentVersion ? { id: row.agentId, version: row.agentVersion } : null,
    tool: row.toolId && row.toolVersion ? { id: row.toolId, version: row.toolVersion } : null,
    conversationId: row.conversationId,
    attended: row.attended,
    createdBy: row.createdBy,
    origin: (row.origin as RunOrigin | null) ?? null,
    toolsAllowedUnattended: row.toolsAllowedUnattended ?? [],
    input: isInvocation
      ? { arguments: (row.arguments ?? {}) as Record<string, unknown> }
      : { userMessage: row.userMessage ?? "", parameters: (row.parameters ?? {}) as Record<string, unknown> },
    resolvedTools: (row.resolvedTools as RunView["resolvedTools"]) ?? null,
    provider: row.providerId && row.model ? { id: row.providerId, model: row.model } : null,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens, modelCalls: row.modelCalls, toolCalls: row.toolCalls },
    costUsd: row.costUsd,
    output: row.output ?? null,
    failure: (row.failure as RunView["failure"]) ?? null,
    flags: (row.flags as unknown[]) ?? [],
    retrievedFacts: (row.retrievedFacts as unknown[]) ?? [],
    lastSeq: row.lastSeq,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

export type CreateRunInput = {
  agent: { id: string; version?: string };
  input: { userMessage: string; conversationId?: string; parameters?: Record<string, unknown> };
  options?: { wait?: boolean; dryRun?: boolean };
};

/** What a dry run answers: what the turn would use, without running it or storing anything. */
export type DryRunView = {
  dryRun: true;
  agent: { id: string; version: string };
  projectId: string;
  conversationId: string | null;
  parameters: Record<string, unknown>;
  instructions: string;
  resolvedTools: { id: string; range: string; version: string }[];
  unresolvedTools: { id: string; range: string; available: string[] }[];
  guardrails: { resolved: { id: string; version: string }[]; missing: string[] };
  provider: { id: string; model: string; reason: string } | null;
  routingProblem: string | null;
};

/** A turn an MCP `tools/call` starts (an agent offered by a toolset, lib/services/toolsets.ts): its origin is the call's. */
export type McpCallStart = { origin: Extract<RunOrigin, { kind: "mcp" }> };
/** A turn started through a door that records how on the origin (the Responses API's background and store). */
export type DoorStart = { origin: RunOrigin };

/**
 * POST /v1/runs. Answers `{status: 201, run}` once the run is settled, `{status: 202, run}` at once with
 * `wait: false` (or when a waited-for run is not settled in time), `{status: 200, dryRun}` for a dry run.
 * `trigger`: what started the run when not the caller directly (a schedule's fire, a webhook's delivery, an MCP call).
 * `beforeStart`: called with the run's id and last sequence number once it is written and before it is executed (a
 * caller streaming the run opens its watch there, so it hears every delta).
 */
export async function createRun(actor: Actor, input: CreateRunInput, trigger?: RunTrigger | McpCallStart | DoorStart, hooks: { beforeStart?: (runId: string, lastSeq: number) => void } = {}): Promise<{ status: 200; body: DryRunView } | { status: 201 | 202; body: RunView }> {
  requireWrite(actor);
  const db = await getDb();
  const kernel = getKernel();
  // The checks only read (a catalog version never changes once registered); the run is written in one statement.
  let version = input.agent.version;
  let conversationId: string | null = null;
  if (input.input.conversationId) {
    const conversation = await findConversation(db, actor, input.input.conversationId);
    if (conversation.agentId !== input.agent.id || (version !== undefined && version !== conversation.agentVersion)) {
      throw new AppError("agent-version-mismatch", `conversation ${conversation.id} is pinned to agent ${conversation.agentId}@${conversation.agentVersion}; this run asks for ${input.agent.id}${version ? `@${version}` : ""}`, {
        conversationId: conversation.id,
        pinned: { id: conversation.agentId, version: conversation.agentVersion },
        requested: { id: input.agent.id, ...(version ? { version } : {}) },
      });
    }
    if (conversation.status === "closed") {
      throw new AppError("conversation-closed", `conversation ${conversation.id} is closed (${conversation.closeReason === "inactive" ? "after inactivity" : "on request"}) and takes no more turns`, { conversationId: conversation.id, closeReason: conversation.closeReason });
    }
    version = conversation.agentVersion;
    conversationId = conversation.id;
  }
  // The agent's active version is read under the tenant's catalog generation: registering, unregistering or
  // reinstating a version bumps it (at once on this server, within a second on the others).
  const wanted = version;
  const agent = await cached(actor.tenantId, `active-agent:${actor.projectId ?? "*"}:${JSON.stringify([input.agent.id, wanted ?? null])}`, () => activeAgentVersion(db, actor, input.agent.id, wanted), "catalog");
  const checked = checkParameters(agent.definition.parameters ?? [], input.input.parameters);
  if (!checked.ok) {
    const issues = checked.issues.map((issue) => ({ ...issue, path: `/input${issue.path}` }));
    throw new AppError("validation-failed", `the parameters do not fit the agent: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}`, { issues });
  }
  if (input.options?.dryRun) return { status: 200, body: await dryRun(actor, agent, conversationId, checked.values, input.agent.id) };

  const origin: RunOrigin = trigger?.origin ?? originOf(actor);
  const created: TurnCreatedData = { agent: { id: input.agent.id, version: agent.version }, conversationId, userMessage: input.input.userMessage, parameters: checked.values, attended: isAttendedOrigin(origin) };
  const runId = randomUUID();
  // The turn starts in the statement that creates the run (its creator holds the lease): tools, guardrails and the
  // model resolved, instructions rendered, facts retrieved — or the run is written failed, with the reason.
  const scope = { tenantId: actor.tenantId, projectId: agent.projectId, conversationId, runId, userId: actor.userId };
  // A conversation whose agent asks a person to continue after every N turns (hitlAfterTurns): the kernel asks for
  // that session approval before the turn starts, so the start is left to it.
  const hitlAfterTurns = agent.definition.conversationPolicy?.hitlAfterTurns;
  const asksSession = conversationId !== null && hitlAfterTurns !== undefined && asksForSession(hitlAfterTurns, (await dbKernelEnvironment.conversationHistory(scope, 1)).turns);
  const { provider, ...start } = asksSession ? { provider: undefined, failed: false, events: [] as NewEvent[], patch: undefined } : await planTurnStart(dbKernelEnvironment, scope, agent.definition, created, new Date());
  const events: NewEvent[] = [{ type: "run-created", data: created }, ...start.events];
  const row = await insertRun({
    id: runId,
    tenantId: actor.tenantId,
    projectId: agent.projectId,
    kind: "agent-turn",
    agentId: input.agent.id,
    agentVersion: agent.version,
    conversationId,
    attended: created.attended,
    origin,
    toolsAllowedUnattended: (trigger && "toolsAllowedUnattended" in trigger ? trigger.toolsAllowedUnattended : undefined) ?? [],
    createdBy: actor.userId,
    userMessage: input.input.userMessage,
    parameters: checked.values,
    events,
    patch: start.patch,
    lease: { owner: kernel.id, ms: kernel.options.leaseMs },
  });
  const wait = input.options?.wait !== false;
  hooks.beforeStart?.(runId, events.length);
  if (start.failed) {
    announceRun(runId);
    return { status: wait ? 201 : 202, body: runView(row) };
  }
  const providers = new Map<string, ModelProvider | null>();
  const turn = start.events[0]?.type === "turn-started" ? start.events[0].data : null;
  if (provider && turn) providers.set(turn.provider.id, await provider);
  return executeNewRun(row, { wait, wallMs: agent.definition.budget?.maxWallMs ?? DEFAULT_MAX_WALL_MS, session: { definition: agent.definition, events: journalOf(row, events), providers } });
}

/** The first events of a run just written, as its journal holds them. */
function journalOf(row: Run, events: readonly NewEvent[]): JournalEvent[] {
  const createdAt = row.createdAt.toISOString();
  return events.map((event, i) => ({ ...event, seq: i + 1, createdAt }) as JournalEvent);
}

/** The run row as the kernel keeps it. */
function kernelRunOf(row: Run): KernelRun {
  const { id, tenantId, projectId, agentId, agentVersion, conversationId, status, createdBy, attended, startedAt, leaseOwner, lastSeq } = row;
  return { id, tenantId, projectId, agentId, agentVersion, conversationId, status, createdBy, attended, startedAt, leaseOwner, lastSeq };
}

/**
 * Hands a run just written (leased to this process's worker) to the worker, with what its creator knows of it.
 * Without `wait` it answers 202 at once; with it, 201 once the run is settled — from the worker's last commit when it
 * settled the run here — or 202 when it is not settled within its wall-clock budget and a margin.
 */
export async function executeNewRun(run: Run, options: { wait: boolean; wallMs: number; session?: TurnSession }): Promise<{ status: 201 | 202; body: RunView }> {
  const execution = getKernel().execute(run.id, { session: { ...options.session, run: kernelRunOf(run), lastRow: { ...run } } });
  if (!options.wait) return { status: 202, body: runView(run) };
  const { settledRow } = await execution;
  if (settledRow) return { status: 201, body: runView(settledRow as Run) };
  const settled = await waitUntilSettled(run.id, options.wallMs + 30_000);
  return { status: isSettledStatus(settled.status) ? 201 : 202, body: runView(settled) };
}

async function dryRun(actor: Actor, agent: Awaited<ReturnType<typeof activeAgentVersion>>, conversationId: string | null, parameters: Record<string, unknown>, agentId: string): Promise<DryRunView> {
  const env = dbKernelEnvironment;
  const scope = { tenantId: actor.tenantId, projectId: agent.projectId, conversationId, runId: "dry-run", userId: actor.userId };
  const [tools, guardrails, route, history] = await Promise.all([
    env.resolveTools(scope, agent.definition),
    env.resolveGuardrails(scope, agent.definition.guardrails),
    env.route(scope, agent.definition),
    env.conversationHistory(scope, 1),
  ]);
  const rendered = renderPreview(agent.definition, parameters, { conversation: { id: conversationId, turn: history.turns + 1 } });
  return {
    dryRun: true,
    agent: { id: agentId, version: agent.version },
    projectId: agent.projectId,
    conversationId,
    parameters,
    instructions: rendered.ok ? rendered.rendered : "",
    resolvedTools: tools.resolved,
    unresolvedTools: tools.unresolved,
    guardrails: { resolved: guardrails.resolved, missing: guardrails.missing },
    provider: isRouted(route) ? { id: route.providerId, model: route.model, reason: route.reason } : null,
    routingProblem: isRouted(route) ? null : route.message,
  };
}

/**
 * Waits until the run is settled (this worker or another one finishing it), or until `timeoutMs` pass. Wakes on the
 * run's announcements on the event bus (any replica's commits), with a slow safety poll for a lost one.
 */
export async function waitUntilSettled(runId: string, timeoutMs: number): Promise<Run> {
  const db = await getDb();
  const deadline = Date.now() + timeoutMs;
  const wake = wakeups(`run:${runId}`);
  try {
    for (;;) {
      const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
      if (isSettledStatus(row.status) || Date.now() >= deadline) return row;
      await wake.wait(Math.min(SAFETY_POLL_MS, Math.max(1, deadline - Date.now())));
    }
  } finally {
    wake.close();
  }
}

/**
 * Waits until `done` holds for the run (read from the database whenever the run's journal grows), `timeoutMs` has
 * passed, or `signal` aborts; answers the run as last read.
 */
export async function waitForRun(runId: string, done: (row: Run) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<Run> {
  const db = await getDb();
  const deadline = Date.now() + timeoutMs;
  const wake = wakeups(`run:${runId}`);
  try {
    for (;;) {
      const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
      if (done(row) || Date.now() >= deadline || signal?.aborted) return row;
      await wake.wait(Math.min(SAFETY_POLL_MS, Math.max(1, deadline - Date.now())), signal);
    }
  } finally {
    wake.close();
  }
}

/** How often a waiting request or stream reads the database when no announcement came (a lost notification). */
const SAFETY_POLL_MS = 2_000;

async function findRun(actor: Actor, runId: string): Promise<Run> {
  const db = await getDb();
  const row = await db.run.findFirst({ where: { id: runId, tenantId: actor.tenantId, ...projectFilter(actor) } });
  if (!row) throw notFound("run", runId);
  return row;
}

export async function getRun(actor: Actor, runId: string): Promise<RunView> {
  return runView(await findRun(actor, runId));
}

export type RunFilters = { status?: RunStatus; kind?: RunKind; agentId?: string; toolId?: string; conversationId?: string; projectId?: string; origin?: RunOrigin["kind"] };

/** GET /v1/runs: newest first. */
export async function listRuns(actor: Actor, filters: RunFilters, page: { limit: number; cursor?: string }): Promise<Page<RunView>> {
  const db = await getDb();
  const rows = await db.run.findMany({
    where: {
      tenantId: actor.tenantId,
      ...projectFilter(actor, filters.projectId),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.kind ? { kind: filters.kind } : {}),
      ...(filters.agentId ? { agentId: filters.agentId } : {}),
      ...(filters.toolId ? { toolId: filters.toolId } : {}),
      ...(filters.conversationId ? { conversationId: filters.conversationId } : {}),
      ...(filters.origin ? { origin: { path: ["kind"], equals: filters.origin } } : {}),
      ...newestFirstAfter(page.cursor),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (row) => [row.createdAt.toISOString(), row.id], runView);
}

/**
 * POST …/cancel: the run ends as cancelled, journaled in the same transaction; a worker executing it loses its
 * lease at its next write and its in-flight calls are aborted. A finished run → 409 run-already-terminal.
 */
export async function cancelRun(actor: Actor, runId: string): Promise<RunView> {
  requireWrite(actor);
  const found = await findRun(actor, runId);
  const terminal = () => new AppError("run-already-terminal", `run ${runId} has already ${found.status === "cancelled" ? "been cancelled" : found.status}`, { runId, status: found.status });
  if (isTerminalStatus(found.status)) throw terminal();
  const db = await getDb();
  const cancelled = await db.$transaction(async (tx) => {
    const updated = await tx.run.updateMany({
      where: { id: runId, status: { notIn: ["completed", "failed", "cancelled"] } },
      data: { status: "cancelled", finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null, lastSeq: { increment: 1 } },
    });
    if (updated.count === 0) return null;
    const row = await tx.run.findUniqueOrThrow({ where: { id: runId } });
    await tx.runEvent.create({ data: { tenantId: row.tenantId, runId, seq: row.lastSeq, type: "run-cancelled", data: { by: actor.userId } } });
    await withdrawOpenInTx(tx, runId);
    return row;
  });
  if (!cancelled) throw new AppError("run-already-terminal", `run ${runId} finished before it could be cancelled`, { runId });
  getKernel().abort(runId, "cancelled");
  announceRun(runId);
  traceRunEnded(runId);
  return runView(cancelled);
}

export type JournalPage = { data: JournalEvent[]; hasMore: boolean; lastSeq: number };

/** GET …/journal?since=n: the events after `since`, in order. */
export async function getJournal(actor: Actor, runId: string, since: number, limit: number): Promise<JournalPage> {
  const run = await findRun(actor, runId);
  const events = await dbKernelStore.loadEvents(runId, since, limit + 1);
  return { data: events.slice(0, limit), hasMore: events.length > limit, lastSeq: run.lastSeq };
}

/** What a run stream sends: a journaled event, or a model's words as they are written (never journaled). */
export type RunStreamItem = { event: JournalEvent; delta?: undefined } | { delta: LiveDelta; event?: undefined };

/**
 * The run's events after `since` as they are written, ending after the terminal event, with the deltas of the model
 * call in flight in between (`deltas`): for a client joining mid-call, first a snapshot of the call's text so far,
 * then each delta as it comes (`openedAt`: the watch was opened before the run started, when its journal ended at that
 * sequence number, so every delta is heard and no snapshot is needed). Subscribes at once (before the generator is first iterated, so a caller can open the watch
 * before it starts the run), and wakes on the event bus — the run's commits and deltas, from whichever replica
 * executes it, kept in the order they were heard — reading the journal only when it grew; a slow safety poll covers
 * a lost notification, and a loss the bus reports is caught up at once. The caller must iterate the generator.
 */
export function watchRun(actor: Actor, runId: string, since: number, signal: AbortSignal, options: { deltas?: boolean; openedAt?: number } = {}): AsyncGenerator<RunStreamItem> {
  // What was heard, in order: a delta, or "the journal grew" — up to `upTo` when the announcement said so (a commit
  // names its last sequence number, so the journal is read up to the point the announcement was made), else up to
  // whatever it holds. The first read is the backlog (of a watch opened before the run started: what its creation wrote).
  const heard: Heard[] = [{ upTo: options.openedAt ?? null }];
  let wake: (() => void) | null = null;
  const hear = (item: Heard) => {
    const last = heard[heard.length - 1];
    if ("upTo" in item && last && "upTo" in last) last.upTo = last.upTo === null || item.upTo === null ? null : Math.max(last.upTo, item.upTo);
    else heard.push(item);
    wake?.();
  };
  const bus = eventBus();
  const unsubscribes = [bus.subscribe(`run:${runId}`, (message) => hear({ upTo: announcedSeq(message) }))];
  if (options.deltas) unsubscribes.push(bus.subscribe(`delta:${runId}`, (message) => (message === null ? hear({ upTo: null }) : isRunDelta(message) ? hear({ delta: message }) : undefined)));
  const waitForNews = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        wake = null;
        resolve();
      };
      const timer = setTimeout(() => {
        hear({ upTo: null });
        done();
      }, SAFETY_POLL_MS);
      wake = done;
      signal.addEventListener("abort", done);
    });
  return (async function* () {
    try {
      await findRun(actor, runId);
      if (options.deltas) trackDeltas();
      let after = since;
      // The model calls journaled so far: a delta of one of them is late (the journal has its answer).
      let journaledCalls = -1;
      let caughtUp = options.openedAt !== undefined;
      while (!signal.aborted) {
        const item = heard.shift();
        if (item === undefined) {
          await waitForNews();
          continue;
        }
        if ("delta" in item) {
          if (item.delta.callIndex > journaledCalls) yield { delta: item.delta };
          continue;
        }
        if (item.upTo !== null && item.upTo <= after) continue;
        const limit = item.upTo === null ? 500 : Math.min(500, item.upTo - after);
        const events = await dbKernelStore.loadEvents(runId, after, limit);
        for (const event of events) {
          yield { event };
          after = event.seq;
          if (event.type === "model-called") journaledCalls = Math.max(journaledCalls, event.data.index);
          if (isTerminalEvent(event.type)) return;
        }
        if (events.length === limit) {
          heard.unshift(item);
          continue;
        }
        if (caughtUp && events.length > 0) continue;
        const run = await dbKernelStore.loadRun(runId);
        if (!run || (isTerminalStatus(run.status) && run.lastSeq <= after)) return;
        if (!caughtUp && options.deltas) {
          // A client joining mid-call gets the text so far once: the deltas heard until now are in it. The calls
          // journaled up to what this client has (before `since`, or sent above) have their answer; a later one
          // not sent yet gets its snapshot first, then its model-called.
          journaledCalls = Math.max(journaledCalls, (await modelCallsUpTo(runId, after)) - 1);
          const snapshot = liveSnapshot(runId, journaledCalls + 1);
          const markers = heard.filter((entry) => !("delta" in entry));
          heard.splice(0, heard.length, ...markers);
          if (snapshot) yield { delta: snapshot };
        }
        caughtUp = true;
      }
    } finally {
      for (const unsubscribe of unsubscribes) unsubscribe();
    }
  })();
}

type Heard = { delta: LiveDelta } | { upTo: number | null };

/** The last sequence number a run announcement names, when it names one. */
function announcedSeq(message: unknown): number | null {
  const seq = typeof message === "object" && message !== null ? (message as { lastSeq?: unknown }).lastSeq : undefined;
  return Number.isInteger(seq) ? (seq as number) : null;
}

/** The model calls the run has journaled up to sequence number `seq` (its model-called events). */
async function modelCallsUpTo(runId: string, seq: number): Promise<number> {
  const db = await getDb();
  return db.runEvent.count({ where: { runId, seq: { lte: seq }, type: "model-called" } });
}

/** The sequence number a `Last-Event-ID` (`<runId>:<seq>`) names, when it names this run. */
export function seqFromLastEventId(runId: string, header: string | null): number | undefined {
  const match = header ? /^([0-9a-fA-F-]{36}):(\d{1,9})$/.exec(header.trim()) : null;
  if (!match || match[1].toLowerCase() !== runId) return undefined;
  return Number(match[2]);
}
