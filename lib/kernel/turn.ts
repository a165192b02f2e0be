/**
 * The turn loop, one step at a time: `advanceRun` folds the run's journal, decides the next step
 * (lib/kernel/journal.ts), performs it, and commits what happened — the journal events with the run-row change,
 * in one atomic write, under the worker's lease. While it holds the lease a worker keeps the run row, the journal
 * and the definition in memory (TurnContext.session) instead of reading them back; every commit is guarded by the
 * lease, so a worker that lost it learns so at its next write. Nothing is needed between steps but the journal, so a
 * worker can die after any step and another one continues from the same place.
 *
 * A turn: resolve the agent's tools and guardrails and route a model → render the instructions → retrieve facts →
 * loop { model call → scheduled tool calls → budget check } → typed-output check (repairs) → guardrails → persist.
 * A tool invocation (no agent, no model): find the exact tool version → its one call, through the same tool path
 * as a turn's calls (input validation with defaults, the scheduler, output validation, the journal, the deadline)
 * → the call's result is the output.
 */
import { renderPreview } from "@/lib/agents/parameters";
import type { AgentDefinition } from "@/lib/agents/validate-agent";
import { isRouted } from "@/lib/models/router";
import { ModelProviderError, type ModelDelta, type ModelProvider, type ModelResponse, type ResponseFormat, type ToolSpec } from "@/lib/models/provider";
import { getValidator, type DataValidation } from "@/lib/tools/json-schema";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { randomBytes } from "node:crypto";
import { sha256Hex } from "@/lib/hash";
import { runToolCalls } from "@/lib/kernel/scheduler";
import { isPaused, type ApprovalGateway, type KernelEnvironment, type PauseTicket, type RunScope } from "@/lib/kernel/environment";
import { argumentsHash, asksForSession, asksWhenUnattended, decideCall, DEFAULT_WAIT_MS } from "@/lib/kernel/approval-policy";
import { releasesLease, type CommitPlan, type KernelRun, type KernelStore, type KernelTx, type RunPatch } from "@/lib/kernel/store";
import {
  foldJournal,
  idempotencyKeyOf,
  modelMessages,
  nextStep,
  turnLimits,
  type KernelState,
  type RunStart,
  type TurnLimits,
} from "@/lib/kernel/journal";
import { callIdOf } from "@/lib/kernel/journal";
import type { AwaitedItem, JournalEvent, ModelCalledData, NewEvent, PlannedCall, ResolvedToolRef, RunFailure, ToolCallResult, ToolLiveEvent, ToolLogLine, ToolProgress, TurnCreatedData, TurnFact, TurnRetrieval, TurnStartedData } from "@/lib/kernel/types";

export type TurnContext = {
  store: KernelStore;
  env: KernelEnvironment;
  /** The worker holding the lease. */
  owner: string;
  /** Aborted when the run is cancelled or the lease is lost: stop without writing. */
  signal: AbortSignal;
  /**
   * What this worker already read and wrote of the run while it holds the lease, so a step does not read back the
   * journal it just wrote. Safe because nobody else appends while the lease is held (a cancel ends the lease, which
   * the next commit's guarded update notices, and aborts `signal` in this process).
   */
  session?: TurnSession;
};

/** The run as this worker knows it within one execution (see TurnContext.session). */
export type TurnSession = {
  /** The run row as of the last commit (its creator passes it in; else it is read once). */
  run?: KernelRun;
  events?: JournalEvent[];
  definition?: AgentDefinition | null;
  providers?: Map<string, ModelProvider | null>;
  /**
   * The run row (the adapter's), each commit's written columns written into it, for a caller waiting for the run: the
   * session's own object (a creator passes a copy).
   */
  lastRow?: unknown;
  /** The last commit left the run without a lease (finished or waiting): nothing to release. */
  leaseReleased?: boolean;
};

/** The worker no longer holds the run (lease lost, or the run was cancelled): nothing more may be written. */
export class LeaseLost extends Error {
  constructor(runId: string) {
    super(`run ${runId}: the lease is no longer held`);
    this.name = "LeaseLost";
  }
}

/** The turn's wall-clock budget ran out during a step. */
class DeadlineReached extends Error {}

/** What one advance did: the run goes on, or it is settled (finished or waiting) for now. */
export type AdvanceOutcome = "continue" | "settled";

const nowIso = (env: KernelEnvironment) => env.now().toISOString();

/** Everything one advance works with, loaded once per step. */
type Turn = {
  ctx: TurnContext;
  run: KernelRun;
  scope: RunScope;
  state: KernelState;
  definition: AgentDefinition | null;
  limits: TurnLimits;
};

const toolCache = new Map<string, ToolManifest>();
const validators = new WeakMap<object, (data: unknown) => DataValidation>();

/** A schema's validator, compiled once per schema object (manifests and definitions are cached, so they repeat). */
function validatorFor(schema: Record<string, unknown>, transport?: ToolManifest["transport"]): (data: unknown) => DataValidation {
  let validate = validators.get(schema);
  if (!validate) {
    validate = getValidator(schema, transport);
    validators.set(schema, validate);
  }
  return validate;
}

/** Performs the next step of the run. Throws LeaseLost when the worker may no longer write. */
export async function advanceRun(ctx: TurnContext, runId: string): Promise<AdvanceOutcome> {
  const session = ctx.session;
  if (ctx.signal.aborted) throw new LeaseLost(runId);
  // Read once per execution: afterwards every commit's guarded update proves the lease is still held.
  const run = session?.run ?? (await ctx.store.loadRun(runId));
  if (!run || run.leaseOwner !== ctx.owner) throw new LeaseLost(runId);
  const events = session?.events ?? (await ctx.store.loadEvents(runId));
  const state = foldJournal(events);
  const scope: RunScope = { tenantId: run.tenantId, projectId: run.projectId, conversationId: run.conversationId, runId, userId: run.createdBy };
  // A tool invocation has no agent: its limits are Agent 1.3.0's defaults (maxWallMs among them).
  const definition = state.invocation ? null : session && session.definition !== undefined ? session.definition : await loadAgentOf(ctx, scope, run);
  if (session) Object.assign(session, { run, events: session.events ?? [...events], definition });
  const limits = turnLimits(definition ?? {});
  const turn: Turn = { ctx, run, scope, state, definition, limits };

  if (!definition && !state.invocation && !state.ended) return fail(turn, { code: "agent-unavailable", message: `agent ${run.agentId}@${run.agentVersion} is not registered in the run's project`, details: { agentId: run.agentId, version: run.agentVersion } });
  const step = nextStep(state, limits);
  if (!step) return "settled";
  // Past the deadline no more work starts (a step that fails anyway reports its own failure).
  const working = step.kind === "call-model" || step.kind === "run-tools";
  if (working && state.started && Date.parse(state.started.deadline) <= ctx.env.now().getTime()) return failWallClock(turn);
  try {
    switch (step.kind) {
      case "start-turn":
        return await startTurn(turn);
      case "start-invocation":
        return await startInvocation(turn, step.tool);
      case "call-model":
        return await callModel(turn);
      case "run-tools":
        return await runTools(turn, step.calls);
      case "await":
        return await resolveAwaited(turn, step.waits);
      case "done":
        return await commit(turn, { events: [{ type: "run-completed", data: { output: step.output } }], patch: { status: "completed", finishedAt: ctx.env.now(), output: step.output } });
      case "failed":
        return await fail(turn, step.failure);
    }
  } catch (error) {
    if (error instanceof DeadlineReached) return failWallClock(turn);
    throw error;
  }
}

function loadAgentOf(ctx: TurnContext, scope: RunScope, run: KernelRun): Promise<AgentDefinition | null> {
  return run.agentId && run.agentVersion ? ctx.env.loadAgent(scope, run.agentId, run.agentVersion) : Promise.resolve(null);
}

/**
 * Commits a plan under the lease: a value is one statement; a function runs in a transaction (it writes through it).
 * Throws LeaseLost when the lease is no longer held.
 */
async function commit(turn: Turn, plan: CommitPlan | ((tx: KernelTx) => Promise<CommitPlan>)): Promise<AdvanceOutcome> {
  let written: CommitPlan | undefined = typeof plan === "function" ? undefined : plan;
  const result = await turn.ctx.store.append(turn.run.id, turn.ctx.owner, typeof plan === "function" ? async (tx) => (written = await plan(tx)) : plan);
  if (!result || !written) throw new LeaseLost(turn.run.id);
  remember(turn, written, result.seqs, result.createdAt, result.row);
  const ended = written.events.some((event) => event.type === "run-completed" || event.type === "run-failed");
  return ended ? "settled" : "continue";
}

/** Keeps the session in step with what was just committed. */
function remember(turn: Turn, written: CommitPlan, seqs: number[], at: Date, row: unknown): void {
  const session = turn.ctx.session;
  if (!session) return;
  const patch = written.patch;
  if (session.run) {
    const run = session.run;
    run.lastSeq = Math.max(run.lastSeq, seqs.length ? seqs[seqs.length - 1] : run.lastSeq);
    if (patch?.status) run.status = patch.status;
    if (patch?.startedAt && !run.startedAt) run.startedAt = patch.startedAt;
    if (releasesLease(patch?.status)) run.leaseOwner = null;
  }
  if (row) session.lastRow = session.lastRow ? Object.assign(session.lastRow as object, row) : row;
  if (releasesLease(patch?.status)) session.leaseReleased = true;
  const events = session.events;
  if (!events) return;
  const createdAt = at.toISOString();
  let ordered = true;
  for (let i = 0; i < written.events.length; i++) {
    const event = { ...written.events[i], seq: seqs[i], createdAt } as JournalEvent;
    if (events.length && events[events.length - 1].seq > event.seq) ordered = false;
    events.push(event);
  }
  // Parallel tool calls commit concurrently: keep the journal's order.
  if (!ordered) events.sort((a, b) => a.seq - b.seq);
}

function failurePlan(turn: Turn, failure: RunFailure, before: NewEvent[] = [], patch: RunPatch = {}): CommitPlan {
  return {
    events: [...before, { type: "run-failed", data: { failure } }],
    patch: { ...patch, status: "failed", finishedAt: turn.ctx.env.now(), failure, ...(turn.run.startedAt || patch.startedAt ? {} : { startedAt: turn.ctx.env.now() }) },
  };
}

async function fail(turn: Turn, failure: RunFailure): Promise<AdvanceOutcome> {
  await commit(turn, failurePlan(turn, failure));
  return "settled";
}

function failWallClock(turn: Turn): Promise<AdvanceOutcome> {
  return fail(turn, { code: "budget-exceeded", message: `the ${turn.state.invocation ? "tool invocation" : "turn"} was aborted: it ran longer than its wall-clock budget (maxWallMs ${turn.limits.maxWallMs})`, details: { kind: "wall-clock", limit: turn.limits.maxWallMs } });
}

// ---- start-turn ----

async function startTurn(turn: Turn): Promise<AdvanceOutcome> {
  const { ctx, scope, state } = turn;
  const created = state.created;
  if (!created) throw new Error(`run ${turn.run.id} has no run-created event of an agent turn`);
  const definition = turn.definition as AgentDefinition;
  if (ctx.env.approvals && scope.conversationId && definition.conversationPolicy?.hitlAfterTurns && !state.session) {
    const { turns } = await ctx.env.conversationHistory(scope, 1);
    if (asksForSession(definition.conversationPolicy.hitlAfterTurns, turns)) return requestSessionApproval(turn, ctx.env.approvals);
  }
  const startedAt = turn.run.startedAt ?? ctx.env.now();
  const { provider, ...plan } = await planTurnStart(ctx.env, scope, turn.definition as AgentDefinition, created, startedAt, turn.limits);
  provider?.catch(() => {});
  return plan.failed ? settle(turn, plan) : commit(turn, plan);
}

/**
 * The start of an agent turn: its tools, guardrails and model resolved, its instructions rendered, its facts
 * retrieved — as the events and run patch of one commit (turn-started, or run-failed with the reason). The kernel
 * commits it as a step; the run's creator writes it in the same statement as the run itself (it holds the lease).
 */
export async function planTurnStart(env: KernelEnvironment, scope: RunScope, definition: AgentDefinition, created: TurnCreatedData, startedAt: Date, limits: TurnLimits = turnLimits(definition)): Promise<CommitPlan & { failed: boolean; provider?: Promise<ModelProvider | null> }> {
  const started: RunPatch = { status: "running", startedAt };
  const failed = (failure: RunFailure, patch: RunPatch): CommitPlan & { failed: boolean } => ({
    failed: true,
    events: [{ type: "run-failed", data: { failure } }],
    patch: { ...patch, status: "failed", finishedAt: env.now(), failure },
  });

  const tools = await env.resolveTools(scope, definition);
  if (tools.unresolved.length) {
    const first = tools.unresolved[0];
    const exists = first.available.length ? `active versions: ${first.available.join(", ")}` : "no active version is registered";
    return failed({ code: "tool-version-unresolvable", message: `tool "${first.id}" has no active version satisfying "${first.range}" (${exists})`, details: { toolId: first.id, range: first.range, available: first.available } }, started);
  }
  const guardrails = await env.resolveGuardrails(scope, definition.guardrails);
  if (guardrails.missing.length) {
    return failed({ code: "unresolved-guardrail", message: `the agent names guardrails that are not registered in its project: ${guardrails.missing.map((id) => JSON.stringify(id)).join(", ")}`, details: { missing: guardrails.missing } }, { ...started, resolvedTools: tools.resolved });
  }
  const route = await env.route(scope, definition);
  if (!isRouted(route)) return failed({ code: "no-provider", message: route.message }, { ...started, resolvedTools: tools.resolved });

  const history = scope.conversationId ? await env.conversationHistory(scope, definition.conversationPolicy?.historyLimit) : { messages: [], turns: 0 };
  const rendered = renderPreview(definition, created.parameters, { conversation: { id: scope.conversationId, turn: history.turns + 1 }, now: env.now() });
  if (!rendered.ok) {
    return failed({ code: "instructions-render-failed", message: "the instructions could not be rendered with the run's parameters", details: { issues: rendered.issues } }, started);
  }
  const facts = new Map<string, TurnFact>();
  let retrieval: TurnRetrieval | undefined;
  for (const intent of definition.retrieval) {
    const found = await env.retrieveFacts(scope, intent, created.userMessage, definition);
    if (found.failure) return failed(found.failure, { ...started, resolvedTools: tools.resolved });
    for (const fact of found.facts) if (!facts.has(fact.id)) facts.set(fact.id, fact);
    if (found.retrieval) {
      retrieval = retrieval
        ? { embedding: retrieval.embedding ?? found.retrieval.embedding, skipped: retrieval.skipped + found.retrieval.skipped, warnings: [...new Set([...retrieval.warnings, ...found.retrieval.warnings])] }
        : found.retrieval;
    }
  }
  const data: TurnStartedData = {
    agent: { id: definition.id, version: definition.version, name: definition.name },
    resolvedTools: tools.resolved,
    guardrails: guardrails.resolved,
    provider: { id: route.providerId, model: route.model, reason: route.reason },
    instructions: rendered.rendered,
    history: history.messages,
    facts: [...facts.values()],
    ...(retrieval ? { retrieval } : {}),
    deadline: new Date(startedAt.getTime() + limits.maxWallMs).toISOString(),
  };
  return {
    failed: false,
    // Built from what routing read, for the turn's first model call (a caller that keeps the session passes it on).
    provider: env.routedProvider?.(scope, route),
    events: [{ type: "turn-started", data }],
    patch: {
      ...started,
      resolvedTools: tools.resolved,
      providerId: route.providerId,
      model: route.model,
      retrievedFacts: data.facts,
      // What embedding the turn's query cost counts toward the run's cost (its tokens are not the model's).
      ...(retrieval?.embedding?.costUsd ? { addUsage: { inputTokens: 0, outputTokens: 0, costUsd: retrieval.embedding.costUsd, modelCalls: 0 } } : {}),
    },
  };
}

async function settle(turn: Turn, plan: CommitPlan): Promise<AdvanceOutcome> {
  await commit(turn, plan);
  return "settled";
}

// ---- start-invocation ----

/**
 * A tool invocation starts: the exact version it names must still be loadable in the run's project (a registered
 * version, active or not, or a built-in); its deadline is set as a turn's is.
 */
async function startInvocation(turn: Turn, tool: { id: string; version: string }): Promise<AdvanceOutcome> {
  const startedAt = turn.run.startedAt ?? turn.ctx.env.now();
  const started: RunPatch = { status: "running", startedAt };
  const resolvedTools: ResolvedToolRef[] = [{ id: tool.id, range: tool.version, version: tool.version }];
  if (!(await manifestOf(turn, tool.id, tool.version))) {
    return settle(turn, failurePlan(turn, { code: "tool-version-unresolvable", message: `tool ${tool.id}@${tool.version} is not registered in the run's project`, details: { toolId: tool.id, range: tool.version, available: [] } }, [], started));
  }
  const deadline = new Date(startedAt.getTime() + turn.limits.maxWallMs).toISOString();
  return commit(turn, { events: [{ type: "invocation-started", data: { tool, deadline } }], patch: { ...started, resolvedTools } });
}

// ---- call-model ----

type StepSignal = { at: string; signal: AbortSignal; deadline: AbortSignal; timer: NodeJS.Timeout; stop: () => void };
/** The step signal of each execution, kept while the deadline stays the same (one timer per turn, not per step). */
const stepSignals = new WeakMap<TurnContext, StepSignal>();

/**
 * A signal that fires at the run's deadline or when the worker must stop: two plain controllers and one timer,
 * about 2 µs on Node 20, where `AbortSignal.any` with `AbortSignal.timeout` took about 25 µs.
 */
function stepSignal(turn: Turn): { signal: AbortSignal; deadline: AbortSignal } {
  const at = (turn.state.started as RunStart).deadline;
  const kept = stepSignals.get(turn.ctx);
  if (kept && kept.at === at) return kept;
  if (kept) disposeStepSignal(turn.ctx, kept);
  const remaining = Math.max(0, Date.parse(at) - turn.ctx.env.now().getTime());
  const worker = turn.ctx.signal;
  const deadline = new AbortController();
  const step = new AbortController();
  const stop = () => step.abort(worker.reason);
  if (worker.aborted) stop();
  else worker.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(() => {
    const reason = new DOMException("the run's deadline passed", "TimeoutError");
    deadline.abort(reason);
    step.abort(reason);
  }, Math.max(1, remaining));
  timer.unref();
  const made = { at, signal: step.signal, deadline: deadline.signal, timer, stop };
  stepSignals.set(turn.ctx, made);
  return made;
}

function disposeStepSignal(ctx: TurnContext, kept: StepSignal): void {
  clearTimeout(kept.timer);
  ctx.signal.removeEventListener("abort", kept.stop);
  stepSignals.delete(ctx);
}

/** Ends an execution's step signal (its deadline timer); the worker calls it when it stops executing the run. */
export function endExecution(ctx: TurnContext): void {
  const kept = stepSignals.get(ctx);
  if (kept) disposeStepSignal(ctx, kept);
}

async function manifestOf(turn: Turn, toolId: string, version: string): Promise<ToolManifest | null> {
  const key = `${turn.scope.tenantId}\u0000${toolId}\u0000${version}`;
  const cached = toolCache.get(key);
  if (cached) return cached;
  const manifest = await turn.ctx.env.loadTool(turn.scope, toolId, version);
  if (manifest) {
    if (toolCache.size > 1000) toolCache.clear();
    toolCache.set(key, manifest);
  }
  return manifest;
}

async function offeredTools(turn: Turn): Promise<{ specs: ToolSpec[]; outsideData: Set<string> }> {
  const specs: ToolSpec[] = [];
  const outsideData = new Set<string>();
  for (const tool of (turn.state.turn as TurnStartedData).resolvedTools) {
    const manifest = await manifestOf(turn, tool.id, tool.version);
    if (!manifest) continue;
    specs.push({ name: tool.id, description: manifest.description, inputSchema: manifest.input });
    if (manifest.resultIsOutsideData) outsideData.add(tool.id);
  }
  return { specs, outsideData };
}

function outputName(definition: AgentDefinition): string {
  return definition.output?.name ?? "output";
}

async function callModel(turn: Turn): Promise<AdvanceOutcome> {
  const { ctx, state, scope, limits } = turn;
  const definition = turn.definition as AgentDefinition;
  const started = state.turn as TurnStartedData;
  const providers = (ctx.session ??= {}).providers ??= new Map();
  if (!providers.has(started.provider.id)) providers.set(started.provider.id, await ctx.env.modelProvider(scope, started.provider.id));
  const provider = providers.get(started.provider.id) ?? null;
  if (!provider) return fail(turn, { code: "no-provider", message: `model provider "${started.provider.id}" chosen at turn start is no longer configured`, details: { providerId: started.provider.id } });
  const { specs, outsideData } = await offeredTools(turn);
  const messages = modelMessages(state, { outsideData: (id) => outsideData.has(id), outputName: outputName(definition) });
  const responseFormat: ResponseFormat | undefined = definition.output ? { type: "json", schema: definition.output.schema, name: outputName(definition) } : undefined;
  const { signal, deadline } = stepSignal(turn);
  let response: ModelResponse;
  try {
    const publish = ctx.env.publishDelta;
    const callIndex = state.modelCalls;
    const onDelta = publish ? (delta: ModelDelta) => publish.call(ctx.env, scope, { callIndex, ...delta }) : undefined;
    response = await provider.complete({ model: started.provider.model, messages, tools: specs, responseFormat, signal, callIndex, onDelta });
  } catch (error) {
    if (deadline.aborted) throw new DeadlineReached();
    if (ctx.signal.aborted) throw new LeaseLost(turn.run.id);
    if (error instanceof ModelProviderError) return fail(turn, { code: error.code, message: error.message, details: { providerId: started.provider.id, model: started.provider.model, attempts: error.attempts, ...(error.status ? { status: error.status } : {}) } });
    throw error;
  }
  const data: ModelCalledData = {
    index: state.modelCalls,
    text: response.text,
    toolCalls: response.toolCalls,
    usage: response.usage,
    costUsd: response.costUsd,
    finishReason: response.finishReason,
    warnings: response.warnings,
    attempts: response.attempts,
  };
  const usage: RunPatch = { addUsage: { inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens, costUsd: response.costUsd, modelCalls: 1 } };
  const spent = state.costUsd + response.costUsd;
  if (limits.maxCostUsd !== undefined && spent > limits.maxCostUsd) {
    return settle(turn, failurePlan(turn, { code: "budget-exceeded", message: `the turn spent ${spent} USD, over its cost budget (maxCostUsd ${limits.maxCostUsd})`, details: { kind: "cost", limit: limits.maxCostUsd, spentUsd: spent } }, [{ type: "model-called", data }], usage));
  }
  if (response.toolCalls.length) return commitModelStep(turn, data, usage);
  return finishAnswer(turn, data, usage);
}

/**
 * A model answer with tool calls. Calls that complete without leaving the commit — built-in tools run in the
 * commit, and calls refused before they start (unknown tool, invalid arguments) — are journaled, in call order,
 * in the same commit as the answer (started and completed together: exactly once). From the first call that runs
 * outside (its start must be committed before it is invoked), the calls are left to the run-tools step.
 */
async function commitModelStep(turn: Turn, data: ModelCalledData, usage: RunPatch): Promise<AdvanceOutcome> {
  const modelEvent: NewEvent = { type: "model-called", data };
  const planned: PlannedCall[] = data.toolCalls.map((call, position) => ({ callId: callIdOf(data.index, position), providerCallId: call.id, toolId: call.name, arguments: call.arguments }));
  // The step's state as it will be once the answer is journaled (prepareCall reads the resolved tools from it).
  const prepared = await Promise.all(planned.map((call) => prepareCall(turn, call)));
  const inline: Prepared[] = [];
  for (const call of prepared) {
    if (!completesInCommit(turn, call)) break;
    inline.push(call);
  }
  if (!inline.length) return commit(turn, { events: [modelEvent], patch: usage });
  const needsTx = inline.some((call) => call.manifest && !call.failure && (turn.ctx.env.needsCommitTransaction?.(call.manifest) ?? true));
  try {
    if (needsTx) {
      return await commit(turn, async (tx) => {
        const events: NewEvent[] = [modelEvent];
        for (const call of inline) events.push(...(await callEvents(turn, call, tx)));
        return { events, patch: { ...usage, addToolCalls: inline.length } };
      });
    }
    const events: NewEvent[] = [modelEvent];
    for (const call of inline) events.push(...(await callEvents(turn, call)));
    return await commit(turn, { events, patch: { ...usage, addToolCalls: inline.length } });
  } catch (error) {
    // The deadline passed during a call: the answer is journaled, then the turn fails on the wall clock.
    if (error instanceof DeadlineReached) await commit(turn, { events: [modelEvent], patch: usage });
    throw error;
  }
}

/** Whether a call's whole life (start and result) can be journaled in the commit that records the model's answer. */
function completesInCommit(turn: Turn, call: Prepared): boolean {
  if (call.failure || !call.manifest) return true;
  // A call the approval gate may stop goes to the run-tools step, where the gate decides before it starts.
  return turn.ctx.env.runsInCommit(call.manifest) && passesUnasked(turn, call.manifest);
}

/** Strips one surrounding Markdown code fence, which models like to add around JSON. */
function unfence(text: string): string {
  const match = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return match ? match[1] : text;
}

function checkTypedOutput(definition: AgentDefinition, text: string): DataValidation {
  const schema = definition.output?.schema as Record<string, unknown>;
  let value: unknown;
  try {
    value = JSON.parse(unfence(text));
  } catch {
    return { ok: false, issues: [{ path: "", message: "the answer is not JSON" }] };
  }
  return validatorFor(schema)(value);
}

/** A final answer: typed-output check (with repairs), guardrails, then the turn completes. */
async function finishAnswer(turn: Turn, data: ModelCalledData, usage: RunPatch): Promise<AdvanceOutcome> {
  const { ctx, state } = turn;
  const definition = turn.definition as AgentDefinition;
  const text = data.text ?? "";
  let output: unknown = text;
  let answer = text;
  if (definition.output) {
    const checked = checkTypedOutput(definition, text);
    const repairs = state.steps.filter((step) => step.kind === "repair").length;
    if (!checked.ok) {
      if (repairs < turn.limits.maxRepairs) {
        return commit(turn, { events: [{ type: "model-called", data }, { type: "output-repair-requested", data: { attempt: repairs + 1, issues: checked.issues } }], patch: usage });
      }
      return settle(turn, failurePlan(turn, { code: "output-schema-violation", message: `the final answer is not a valid ${outputName(definition)} after ${repairs} repair round(s)`, details: { issues: checked.issues, repairs } }, [{ type: "model-called", data }], usage));
    }
    output = checked.value;
    answer = JSON.stringify(checked.value);
  }
  // Exactly the versions resolved at turn start, even if one was unregistered or superseded since.
  const guardrails = await ctx.env.loadGuardrails(turn.scope, (state.turn as TurnStartedData).guardrails);
  if (guardrails.missing.length) {
    return settle(turn, failurePlan(turn, { code: "unresolved-guardrail", message: `guardrail versions resolved at turn start can no longer be loaded: ${guardrails.missing.join(", ")}`, details: { missing: guardrails.missing } }, [{ type: "model-called", data: { ...data, text: null, textWithheld: true } }], usage));
  }
  const findings = await guardrails.evaluate(answer);
  const halting = findings.filter((finding) => finding.action === "halt");
  if (halting.length) {
    const withheld: ModelCalledData = { ...data, text: null, textWithheld: true };
    return settle(turn, failurePlan(turn, { code: "guardrail-violation", message: `the final answer was rejected by guardrail ${halting.map((f) => JSON.stringify(f.guardrailId)).join(", ")}: ${halting[0].message}`, details: { findings: halting } }, [{ type: "model-called", data: withheld }], usage));
  }
  const flags = findings.filter((finding) => finding.action === "flag");
  const created = state.created;
  return settle(turn, {
    events: [{ type: "model-called", data }, ...(flags.length ? [{ type: "guardrail-flagged" as const, data: { findings: flags } }] : []), { type: "run-completed", data: { output } }],
    patch: { ...usage, status: "completed", finishedAt: ctx.env.now(), output, ...(flags.length ? { flags } : {}) },
    effects: turn.scope.conversationId && created
      ? { conversation: { id: turn.scope.conversationId, runId: turn.run.id, messages: [{ role: "user", content: created.userMessage }, { role: "assistant", content: answer }] } }
      : undefined,
  });
}

// ---- run-tools ----

type Prepared = PlannedCall & { mutating: boolean; pauses: boolean; declaresConnections: boolean; mayAsk?: boolean; manifest?: ToolManifest; failure?: ToolCallResult };

async function prepareCall(turn: Turn, call: PlannedCall): Promise<Prepared> {
  const started = turn.state.started as RunStart;
  const tool = started.resolvedTools.find((item) => item.id === call.toolId);
  const base = { ...call, mutating: true, pauses: false, declaresConnections: false };
  if (!tool) {
    const names = started.resolvedTools.map((item) => item.id).join(", ") || "none";
    return { ...base, failure: { ok: false, error: { kind: "unknown-tool", message: `the agent has no tool "${call.toolId}" (its tools: ${names})` } } };
  }
  const manifest = await manifestOf(turn, tool.id, tool.version);
  if (!manifest) return { ...base, failure: { ok: false, error: { kind: "tool-error", message: `tool ${tool.id}@${tool.version} is no longer available` } } };
  const prepared: Prepared = { ...base, manifest, mutating: manifest.mutating !== false, pauses: manifest.pauses === true, declaresConnections: Object.keys(manifest.needsSpec?.connections ?? {}).length > 0, mayAsk: !passesUnasked(turn, manifest) };
  if (typeof call.arguments !== "object" || call.arguments === null || Array.isArray(call.arguments)) {
    return { ...prepared, failure: { ok: false, error: { kind: "invalid-arguments", message: "the arguments are not a JSON object" } } };
  }
  return prepared;
}

async function runTools(turn: Turn, calls: PlannedCall[]): Promise<AdvanceOutcome> {
  const prepared = await Promise.all(calls.map((call) => prepareCall(turn, call)));
  const startedHere = new Set<string>();
  // The calls of a concurrent group that run outside the commit and need nobody's approval: their starts are
  // journaled in one commit (one row lock instead of one per call), still before any of them is invoked. A call the
  // gate may stop (an unattended run's tool that asks) is left to executeCall, which asks first.
  const startGroup = async (group: readonly Prepared[]) => {
    const starts: NewEvent[] = [];
    for (const call of group) {
      if (!call.manifest || call.failure || ctx.env.runsInCommit(call.manifest) || !passesUnasked(turn, call.manifest)) continue;
      const input = checkedInput(call);
      if (!input.ok) continue;
      starts.push(startedEventOf(turn, call, input.value));
      startedHere.add(call.callId);
    }
    if (starts.length) await commit(turn, { events: starts });
  };
  const ctx = turn.ctx;
  // A call that must wait (an approval, a pause) stops the step: the calls after it start only once it is resolved
  // (the next advance sees the wait, nextStep → await, and suspends the run). Such a call runs alone (mayAsk), so no
  // call after it was started with its group.
  await runToolCalls(prepared, { parallelToolCalls: turn.definition?.parallelToolCalls !== false, waits: (outcome) => outcome === "wait" }, (call) => executeCall(turn, call, startedHere.has(call.callId)), startGroup);
  return "continue";
}

function summarizeIssues(issues: { path: string; message: string }[]): string {
  return issues.slice(0, 10).map((issue) => `${issue.path || "/"} ${issue.message}`).join("; ");
}

/** Log lines journaled per tool call; the rest are counted in one more line. */
const MAX_LOG_LINES_PER_CALL = 200;

/** The tool-call-started event of a call whose arguments passed its input schema (defaults filled). */
function startedEventOf(turn: Turn, call: Prepared, input: unknown): NewEvent {
  const version = (turn.state.started as RunStart).resolvedTools.find((tool) => tool.id === call.toolId)?.version as string;
  const ref = call.manifest?.codeArtifactRef;
  // An oci handler's call records which bytes it ran: the artifact's version and the digest its version resolved to.
  const artifact = ref?.kind === "oci" ? { artifact: { imageRef: ref.imageRef, artifactVersion: ref.artifactVersion, ...(ref.digest ? { digest: ref.digest } : {}) } } : {};
  return { type: "tool-call-started", data: { callId: call.callId, toolId: call.toolId, version, arguments: input, idempotencyKey: idempotencyKeyOf(turn.run.id, call.callId), ...artifact } };
}

/** A call's arguments checked against its tool's input schema, or the failure the model gets back. */
function checkedInput(call: Prepared): { ok: true; value: unknown } | { ok: false; result: ToolCallResult } {
  if (call.failure || !call.manifest) return { ok: false, result: call.failure as ToolCallResult };
  const input = validatorFor(call.manifest.input, call.manifest.transport)(call.arguments);
  if (input.ok) return { ok: true, value: input.value };
  return { ok: false, result: { ok: false, error: { kind: "invalid-arguments", message: `the arguments do not match the tool's input schema: ${summarizeIssues(input.issues)}` } } };
}

/** Runs one call and collects its log lines, as journaled with its result. */
function callRunner(turn: Turn, call: Prepared, input: unknown) {
  const { ctx, scope } = turn;
  const manifest = call.manifest as ToolManifest;
  const { signal, deadline } = stepSignal(turn);
  // A tool's log lines are journaled with its result, in the same commit (the kernel writes events only in commits).
  const logs: NewEvent[] = [];
  let dropped = 0;
  const live = ctx.env.publishToolLive ? (event: ToolLiveEvent) => ctx.env.publishToolLive?.(scope, event) : undefined;
  const log = (line: ToolLogLine) => {
    if (logs.length < MAX_LOG_LINES_PER_CALL) {
      logs.push({ type: "tool-logged", data: { callId: call.callId, toolId: call.toolId, ...line } });
      live?.({ callId: call.callId, toolId: call.toolId, kind: "log", line });
    } else dropped += 1;
  };
  const progress = live ? (update: ToolProgress) => live({ callId: call.callId, toolId: call.toolId, kind: "progress", ...update }) : undefined;
  const logged = (): NewEvent[] =>
    dropped ? [...logs, { type: "tool-logged", data: { callId: call.callId, toolId: call.toolId, level: "warn", message: `${dropped} more log line(s) dropped (at most ${MAX_LOG_LINES_PER_CALL} per call)`, at: new Date().toISOString() } }] : logs;
  const invoke = async (tx?: KernelTx, pause?: PauseTicket) => {
    const result = await ctx.env.invokeTool({ manifest, input, scope, callId: call.callId, idempotencyKey: idempotencyKeyOf(turn.run.id, call.callId), signal, tx, log, ...(progress ? { progress } : {}), ...(pause ? { pause } : {}) });
    if (deadline.aborted) throw new DeadlineReached();
    if (ctx.signal.aborted) throw new LeaseLost(turn.run.id);
    return isPaused(result) ? result : checkOutput(manifest, result);
  };
  return { invoke, logged };
}

const completedEvent = (call: Prepared, begin: number, result: ToolCallResult): NewEvent => ({ type: "tool-call-completed", data: { callId: call.callId, toolId: call.toolId, durationMs: Date.now() - begin, ...result } });

/** The events of a call that completes inside a commit: refused before it starts, or a tool that runs in the commit. */
async function callEvents(turn: Turn, call: Prepared, tx?: KernelTx, approved?: unknown): Promise<NewEvent[]> {
  const begin = Date.now();
  const input = approved === undefined ? checkedInput(call) : { ok: true as const, value: approved };
  if (!input.ok) return [completedEvent(call, begin, input.result)];
  const { invoke, logged } = callRunner(turn, call, input.value);
  const result = await invoke(tx);
  return [startedEventOf(turn, call, input.value), ...logged(), completedEvent(call, begin, isPaused(result) ? notPausable(call.manifest as ToolManifest) : result)];
}

/**
 * Performs one call; `started`: its start was already journaled with its group's (it passed the gate unasked).
 * "wait" when it now waits for a person's approval or for a paused call's answer.
 */
async function executeCall(turn: Turn, call: Prepared, started = false): Promise<"done" | "wait"> {
  const { ctx, scope } = turn;
  const begin = Date.now();
  const checked = checkedInput(call);
  if (!checked.ok) {
    await commit(turn, { events: [completedEvent(call, begin, checked.result)], patch: { addToolCalls: 1 } });
    return "done";
  }
  const manifest = call.manifest as ToolManifest;
  const version = versionOf(turn, call);
  let value = checked.value;
  if (!started) {
    const gate = await gateCall(turn, call, manifest, version, checked.value);
    if (gate.kind === "wait") return "wait";
    if (gate.arguments !== checked.value) {
      // Approved with edited arguments: they were validated when decided, and are again here (defaults filled).
      const edited = validatorFor(manifest.input, manifest.transport)(gate.arguments);
      if (!edited.ok) {
        await commit(turn, { events: [completedEvent(call, begin, { ok: false, error: { kind: "invalid-arguments", message: `the approved arguments do not match the tool's input schema: ${summarizeIssues(edited.issues)}` } })], patch: { addToolCalls: 1 } });
        return "done";
      }
      value = edited.value;
    }
  }
  if (ctx.env.runsInCommit(manifest)) {
    if (ctx.env.needsCommitTransaction?.(manifest) === false) {
      const events = await callEvents(turn, call, undefined, value);
      await commit(turn, { events, patch: { addToolCalls: 1 } });
      return "done";
    }
    await commit(turn, async (tx) => ({ events: await callEvents(turn, call, tx, value), patch: { addToolCalls: 1 } }));
    return "done";
  }
  const { invoke, logged } = callRunner(turn, call, value);
  const gateway = ctx.env.approvals;
  if (manifest.pauses !== true || !gateway) {
    if (!started) await commit(turn, { events: [startedEventOf(turn, call, value)] });
    const result = await invoke();
    await commit(turn, { events: [...logged(), completedEvent(call, begin, isPaused(result) ? notPausable(manifest) : result)], patch: { addToolCalls: 1 } });
    return "done";
  }
  // A pausing tool: its wait token is written (hashed) with the call's start; a call run again gets a new token.
  const token = `kgw_${randomBytes(24).toString("base64url")}`;
  const expiresAt = new Date(ctx.env.now().getTime() + DEFAULT_WAIT_MS);
  let ticket: PauseTicket | undefined;
  await commit(turn, async (tx) => {
    const { waitId } = await gateway.createWait(tx, { scope, callId: call.callId, tool: { id: call.toolId, version }, tokenHash: sha256Hex(token), expiresAt });
    ticket = { waitId, token, url: gateway.completionUrl(waitId), expiresAt: expiresAt.toISOString() };
    return { events: [startedEventOf(turn, call, value)] };
  });
  const pause = ticket as PauseTicket;
  const result = await invoke(undefined, pause);
  if (isPaused(result) && result.paused.waitId === pause.waitId) {
    const until = new Date(result.paused.expiresAt);
    const remainingMs = Math.max(0, Date.parse((turn.state.started as RunStart).deadline) - ctx.env.now().getTime());
    await commit(turn, async (tx) => {
      await gateway.startWait(tx, pause.waitId, until);
      return { events: [...logged(), { type: "wait-started", data: { waitId: pause.waitId, callId: call.callId, toolId: call.toolId, expiresAt: until.toISOString(), remainingMs } }] };
    });
    return "wait";
  }
  await commit(turn, async (tx) => {
    await gateway.discardWait(tx, pause.waitId);
    return { events: [...logged(), completedEvent(call, begin, isPaused(result) ? notPausable(manifest) : result)], patch: { addToolCalls: 1 } };
  });
  return "done";
}

/** The version a call's tool resolved to at turn start. */
const versionOf = (turn: Turn, call: Prepared): string => (turn.state.started as RunStart).resolvedTools.find((tool) => tool.id === call.toolId)?.version as string;

/**
 * Whether a call passes the gate without asking anyone and without reading grants: a read-only tool, outside an
 * unattended run that asks for it (lib/kernel/approval-policy.ts decides the rest in gateCall).
 */
function passesUnasked(turn: Turn, manifest: ToolManifest): boolean {
  if (!turn.ctx.env.approvals) return true;
  if (manifest.mutating !== false) return false;
  return turn.state.attended || asksWhenUnattended(manifest) === null;
}

function notPausable(manifest: ToolManifest): ToolCallResult {
  return { ok: false, error: { kind: "tool-error", message: `tool ${manifest.id} answered with a pause, but this call cannot pause (only a pack handler tool with pauses: true can)` } };
}

// ---- the approval gate ----

type GateOutcome = { kind: "run"; arguments: unknown } | { kind: "wait" };

const conditionValidators = new Map<string, (data: unknown) => DataValidation>();

/** A grant condition's validator (the same safe engine as tool schemas), compiled once per condition text. */
function conditionMatches(condition: unknown, args: unknown): boolean {
  if (condition === null || condition === undefined) return true;
  if (typeof condition !== "object" && typeof condition !== "boolean") return false;
  const key = JSON.stringify(condition);
  let validate = conditionValidators.get(key);
  if (!validate) {
    try {
      validate = getValidator(condition as Record<string, unknown>);
    } catch {
      // A condition that does not compile matches nothing: the call asks.
      validate = () => ({ ok: false, issues: [{ path: "", message: "the grant's condition is not a valid schema" }] });
    }
    if (conditionValidators.size > 1000) conditionValidators.clear();
    conditionValidators.set(key, validate);
  }
  return validate(args).ok;
}

function callStateOf(turn: Turn, callId: string) {
  for (let i = turn.state.steps.length - 1; i >= 0; i--) {
    const step = turn.state.steps[i];
    if (step.kind === "repair") continue;
    const found = step.calls.find((call) => call.callId === callId);
    if (found) return found;
  }
  return undefined;
}

/**
 * Where a call is about to start: decides whether it may (lib/kernel/approval-policy.ts), and when it may not,
 * journals `approval-requested` with the approval row in one commit — before the run waits. A call whose approval
 * was already journaled is never asked again: an approve runs it (with the edited arguments, if any).
 */
async function gateCall(turn: Turn, call: Prepared, manifest: ToolManifest, version: string, args: unknown): Promise<GateOutcome> {
  const gateway = turn.ctx.env.approvals;
  if (!gateway) return { kind: "run", arguments: args };
  const known = callStateOf(turn, call.callId)?.approval;
  if (known?.decided) return known.decided.decision === "approved" ? { kind: "run", arguments: known.decided.arguments ?? args } : { kind: "wait" };
  if (known) return { kind: "wait" };
  const { scope, state, run } = turn;
  // An invocation the MCP server started asks as an agent's call does; a person's own "try it" is their explicit act.
  const invocation = state.invocation !== null && state.invocation.asksLikeAnAgentCall !== true;
  const unattendedAsk = !state.attended && asksWhenUnattended(manifest) !== null;
  const toolsAllowedUnattended = unattendedAsk ? await gateway.toolsAllowedUnattended(scope) : [];
  const needsGrants = !invocation && manifest.mutating !== false && run.agentId !== null && !(unattendedAsk && !toolsAllowedUnattended.includes(manifest.id));
  const grants = needsGrants ? await gateway.grants(scope, run.agentId as string, manifest.id) : [];
  const decision = decideCall({
    manifest,
    arguments: args,
    attended: state.attended,
    invocation,
    toolsAllowedUnattended,
    grants: grants.map((grant) => ({ id: grant.id, matches: (value: unknown) => conditionMatches(grant.condition, value) })),
  });
  if (decision.kind === "pass") return { kind: "run", arguments: args };
  const hash = argumentsHash(args);
  const now = turn.ctx.env.now();
  const expiresAt = new Date(now.getTime() + gateway.approvalTtlMs());
  const remainingMs = Math.max(0, Date.parse((state.started as RunStart).deadline) - now.getTime());
  await commit(turn, async (tx) => {
    const { approvalId } = await gateway.createApproval(tx, {
      scope,
      kind: "tool-call",
      callId: call.callId,
      agent: run.agentId && run.agentVersion ? { id: run.agentId, version: run.agentVersion } : null,
      tool: { id: manifest.id, version },
      reason: decision.reason,
      arguments: args,
      argumentsHash: hash,
      effects: manifest.effects ?? [],
      requestedAt: now,
      expiresAt,
    });
    return { events: [{ type: "approval-requested", data: { approvalId, kind: "tool-call", callId: call.callId, toolId: manifest.id, version, reason: decision.reason, argumentsHash: hash, expiresAt: expiresAt.toISOString(), remainingMs } }] };
  });
  return { kind: "wait" };
}

/** hitlAfterTurns: the turn asks a person to continue the conversation before it starts. */
async function requestSessionApproval(turn: Turn, gateway: ApprovalGateway): Promise<AdvanceOutcome> {
  const { scope, run } = turn;
  const now = turn.ctx.env.now();
  const expiresAt = new Date(now.getTime() + gateway.approvalTtlMs());
  return commit(turn, async (tx) => {
    const { approvalId } = await gateway.createApproval(tx, {
      scope,
      kind: "session",
      callId: "session",
      agent: run.agentId && run.agentVersion ? { id: run.agentId, version: run.agentVersion } : null,
      tool: null,
      reason: "hitl-after-turns",
      arguments: null,
      argumentsHash: null,
      effects: [],
      requestedAt: now,
      expiresAt,
    });
    return { events: [{ type: "approval-requested", data: { approvalId, kind: "session", callId: "session", toolId: null, version: null, reason: "hitl-after-turns", argumentsHash: null, expiresAt: expiresAt.toISOString(), remainingMs: turn.limits.maxWallMs } }] };
  });
}

/**
 * The run waits (nextStep → await): what was decided or answered meanwhile is journaled — re-checked against what
 * was asked (an approval whose arguments no longer hash to the journaled hash, or that cannot be read, blocks:
 * the call is not run) — and the run goes on; when nothing was, the run is suspended (no lease, no process).
 */
async function resolveAwaited(turn: Turn, waits: AwaitedItem[]): Promise<AdvanceOutcome> {
  const { ctx } = turn;
  const gateway = ctx.env.approvals;
  if (!gateway) return fail(turn, { code: "internal-error", message: "the run waits for an approval, but this server has no approval store" });
  const approvalIds = waits.flatMap((item) => (item.approvalId ? [item.approvalId] : []));
  const waitIds = waits.flatMap((item) => (item.waitId ? [item.waitId] : []));
  const [approvals, tokens] = await Promise.all([approvalIds.length ? gateway.loadApprovals(approvalIds) : [], waitIds.length ? gateway.loadWaits(waitIds) : []]);
  const events: NewEvent[] = [];
  let failure: RunFailure | null = null;
  let toolCalls = 0;
  const now = ctx.env.now();
  for (const item of waits) {
    const deadline = new Date(now.getTime() + item.remainingMs).toISOString();
    const completed = (result: ToolCallResult): NewEvent => ({ type: "tool-call-completed", data: { callId: item.callId, toolId: callStateOf(turn, item.callId)?.toolId ?? "", durationMs: 0, ...result } });
    if (item.approvalId) {
      const record = approvals.find((row) => row.id === item.approvalId && row.runId === turn.run.id && row.callId === item.callId);
      if (record?.status === "pending") continue;
      const decided = (decision: "approved" | "rejected" | "expired" | "invalid", extra: { arguments?: unknown; edited?: boolean } = {}): NewEvent => ({
        type: "approval-decided",
        data: { approvalId: item.approvalId as string, callId: item.callId, decision, decidedBy: record?.decidedBy ?? null, rationale: record?.rationale ?? null, deadline, ...extra },
      });
      const session = item.callId === "session";
      const intact = record && (session ? record.argumentsHash === null : record.argumentsHash === item.argumentsHash && argumentsHash(record.arguments) === item.argumentsHash);
      if (!record || !intact || !["approved", "rejected", "expired", "withdrawn"].includes(record.status)) {
        // Fail closed: the record no longer says what the reviewer was asked; nothing runs.
        events.push(decided("invalid"));
        failure ??= { code: "approval-invalid", message: `approval ${item.approvalId} of call ${item.callId} no longer matches what was asked (its record was changed or cannot be read); the call was not run`, details: { approvalId: item.approvalId, callId: item.callId } };
        continue;
      }
      if (record.status === "withdrawn") continue; // the withdrawal ended the run in its own transaction
      if (record.status === "approved") {
        const edited = record.editedArguments !== null && record.editedArguments !== undefined;
        events.push(decided("approved", session ? {} : { arguments: edited ? record.editedArguments : record.arguments, edited }));
        continue;
      }
      if (record.status === "expired" && (session || record.onExpired === "fail")) {
        events.push(decided("expired"));
        if (!session) failure ??= { code: "approval-expired", message: `the approval of call ${item.callId} expired before a person decided`, details: { approvalId: item.approvalId, callId: item.callId } };
        continue;
      }
      events.push(decided(record.status as "rejected" | "expired"));
      if (!session) {
        toolCalls += 1;
        const message = record.status === "expired" ? "the call was not run: its approval expired before a person decided (reason: expired)" : `the call was not run: a person rejected it${record.rationale ? ` (rationale: ${record.rationale})` : ""}`;
        events.push(completed({ ok: false, error: { kind: "tool-error", reason: record.status === "expired" ? "approval-expired" : "approval-rejected", message } }));
      }
      continue;
    }
    if (item.waitId) {
      const record = tokens.find((row) => row.id === item.waitId && row.runId === turn.run.id && row.callId === item.callId);
      if (record?.status === "pending") continue;
      const manifest = await pausedManifest(turn, item.callId);
      toolCalls += 1;
      if (record?.status === "completed" && manifest) {
        events.push({ type: "wait-completed", data: { waitId: item.waitId, callId: item.callId, outcome: "completed", deadline } });
        events.push(completed(checkOutput(manifest, { ok: true, output: record.output })));
      } else {
        events.push({ type: "wait-completed", data: { waitId: item.waitId, callId: item.callId, outcome: "expired", deadline } });
        events.push(completed({ ok: false, error: { kind: "tool-error", reason: "wait-expired", message: "the paused call's wait expired before its answer came" } }));
      }
    }
  }
  if (events.length) {
    if (failure) return settle(turn, failurePlan(turn, failure, events, toolCalls ? { addToolCalls: toolCalls } : {}));
    return commit(turn, { events, patch: toolCalls ? { addToolCalls: toolCalls } : undefined });
  }
  let suspended = false;
  await commit(turn, async (tx) => {
    suspended = await gateway.stillPending(tx, { approvalIds, waitIds });
    return suspended ? { events: [], patch: { status: "suspended" } } : { events: [] };
  });
  return suspended ? "settled" : "continue";
}

async function pausedManifest(turn: Turn, callId: string): Promise<ToolManifest | null> {
  const call = callStateOf(turn, callId);
  const tool = call && turn.state.started?.resolvedTools.find((item) => item.id === call.toolId);
  return tool ? manifestOf(turn, tool.id, tool.version) : null;
}

/** Every result is checked against the tool's `output` schema; a mismatch is the tool's failure. */
function checkOutput(manifest: ToolManifest, result: ToolCallResult): ToolCallResult {
  if (!result.ok) return result;
  const checked = validatorFor(manifest.output, manifest.transport)(result.output);
  if (checked.ok) return { ok: true, output: checked.value };
  return { ok: false, error: { kind: "tool-error", message: `the tool's result does not match its output schema: ${summarizeIssues(checked.issues)}` } };
}
