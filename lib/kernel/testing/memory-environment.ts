/**
 * A KernelEnvironment from plain data, for tests of the turn loop without the registry, the database or a network:
 * agent definitions, tool manifests with in-memory handlers, guardrails, a fixed route to a model provider (the
 * scripted one by default), facts and a clock. Every tool invocation is recorded (input, idempotency key, when it
 * started and ended relative to the others), and so is every model request. The data lives in mutable collections
 * on the environment, so a test can change the registry in the middle of a turn; it is not divided by tenant or
 * project.
 */
import semver from "semver";
import type { KernelTx } from "@/lib/kernel/store";
import type { AgentDefinition, RetrievalIntent } from "@/lib/agents/validate-agent";
import { evaluateGuardrails, type ResolvedGuardrail } from "@/lib/guardrails/evaluate";
import type { ModelProvider, ModelRequest } from "@/lib/models/provider";
import { createScriptedProvider } from "@/lib/models/providers/scripted";
import type { RouteResult } from "@/lib/models/router";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import type { GuardrailSet, GuardrailCheck, KernelEnvironment, RunScope, ToolResolutionOutcome } from "@/lib/kernel/environment";
import type { Finding, RunDelta, ToolCallResult, TurnFact } from "@/lib/kernel/types";

export type MemoryToolContext = {
  callId: string;
  idempotencyKey: string;
  signal: AbortSignal;
  scope: RunScope;
  /** How many times this call (run and call id) has been invoked, this one included. */
  attempt: number;
  tx?: KernelTx;
};

/** A tool's behaviour: the input is already validated (defaults filled); a throw becomes a `tool-error` result. */
export type MemoryToolHandler = (input: unknown, context: MemoryToolContext) => ToolCallResult | Promise<ToolCallResult>;

export type MemoryTool = {
  manifest: ToolManifest;
  handler?: MemoryToolHandler;
  /** Whether the version is active (resolvable by a range); default true. */
  active?: boolean;
  /** The call runs inside the commit that journals it, as a built-in native tool does; default false. */
  runsInCommit?: boolean;
};

/** A guardrail's active version: a definition evaluated by lib/guardrails/evaluate.ts, or a function of the answer. */
export type MemoryGuardrail = ResolvedGuardrail | { id: string; version: string; evaluate(answer: string): Finding[] | Promise<Finding[]> };

/** One invocation of a tool. Ticks order every start and end of the environment: two calls overlapped when each started before the other ended. */
export type ToolInvocationRecord = {
  toolId: string;
  version: string;
  runId: string;
  callId: string;
  idempotencyKey: string;
  input: unknown;
  startTick: number;
  endTick: number | null;
  result: ToolCallResult | null;
};

export type MemoryEnvironmentOptions = {
  agents?: AgentDefinition[];
  tools?: MemoryTool[];
  guardrails?: MemoryGuardrail[];
  /** What routing answers for every agent; default the scripted provider. */
  route?: RouteResult;
  /** Providers by id; default `{scripted: createScriptedProvider()}`. */
  providers?: Record<string, ModelProvider>;
  /** Facts retrieval can find: each intent gets those of its types, up to its limit (default 10). */
  facts?: TurnFact[];
  /** Where conversation history is read (a MemoryStore fits). */
  conversations?: { conversationMessages(conversationId: string): { role: "user" | "assistant"; content: string }[] };
  /** Default the real clock. */
  clock?: { now(): Date };
};

export type MemoryEnvironment = KernelEnvironment & {
  /** Agent definitions by `id@version`. */
  readonly agents: Map<string, AgentDefinition>;
  readonly tools: MemoryTool[];
  /** The active version of each guardrail, by id. */
  readonly guardrails: Map<string, MemoryGuardrail>;
  readonly providers: Map<string, ModelProvider>;
  readonly invocations: ToolInvocationRecord[];
  /** Every model request, in order, with the provider it went to. */
  readonly modelRequests: { providerId: string; request: ModelRequest }[];
  /** Every model delta the kernel published, in order, with its run. */
  readonly deltas: { runId: string; delta: RunDelta }[];
  invocationsOf(toolId: string): ToolInvocationRecord[];
};

/** The route of an environment without one: the scripted provider. */
export const SCRIPTED_ROUTE: RouteResult = { providerId: "scripted", model: "scripted", reason: "memory environment: fixed route" };

/** Resolves after `ms`, or rejects with the signal's reason when it is aborted first: a slow tool that can be stopped. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const agentKey = (id: string, version: string) => `${id}@${version}`;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A KernelEnvironment over `options`' data. */
export function createMemoryEnvironment(options: MemoryEnvironmentOptions = {}): MemoryEnvironment {
  const clock = options.clock ?? { now: () => new Date() };
  const agents = new Map((options.agents ?? []).map((definition) => [agentKey(definition.id, definition.version), definition]));
  const tools = [...(options.tools ?? [])];
  const guardrails = new Map((options.guardrails ?? []).map((guardrail) => [guardrail.id, guardrail]));
  const providers = new Map(Object.entries(options.providers ?? { scripted: createScriptedProvider() }));
  const invocations: ToolInvocationRecord[] = [];
  const modelRequests: { providerId: string; request: ModelRequest }[] = [];
  const deltas: { runId: string; delta: RunDelta }[] = [];
  let tick = 0;

  const toolOf = (manifest: ToolManifest) => tools.find((tool) => tool.manifest.id === manifest.id && tool.manifest.version === manifest.version);

  async function evaluate(resolved: readonly MemoryGuardrail[], answer: string): Promise<Finding[]> {
    const findings: Finding[] = [];
    for (const guardrail of resolved) findings.push(...("definition" in guardrail ? evaluateGuardrails([guardrail], answer) : await guardrail.evaluate(answer)));
    return findings;
  }

  return {
    agents,
    tools,
    guardrails,
    providers,
    invocations,
    modelRequests,
    deltas,
    invocationsOf: (toolId) => invocations.filter((record) => record.toolId === toolId),

    now: () => clock.now(),

    publishDelta(scope, delta) {
      deltas.push({ runId: scope.runId, delta });
    },

    async loadAgent(_scope, agentId, version) {
      return agents.get(agentKey(agentId, version)) ?? null;
    },

    async resolveTools(_scope, definition): Promise<ToolResolutionOutcome> {
      const outcome: ToolResolutionOutcome = { resolved: [], unresolved: [] };
      for (const ref of definition.tools) {
        const available = tools
          .filter((tool) => tool.manifest.id === ref.id && tool.active !== false)
          .map((tool) => tool.manifest.version)
          .sort(semver.rcompare);
        // npm's rules, as pickToolVersion in lib/services/agent-resolution.ts.
        const version = semver.validRange(ref.version) === null ? null : semver.maxSatisfying(available, ref.version);
        if (version) outcome.resolved.push({ id: ref.id, range: ref.version, version });
        else outcome.unresolved.push({ id: ref.id, range: ref.version, available });
      }
      return outcome;
    },

    async loadTool(_scope, toolId, version) {
      return tools.find((tool) => tool.manifest.id === toolId && tool.manifest.version === version)?.manifest ?? null;
    },

    async resolveGuardrails(_scope, ids): Promise<GuardrailSet> {
      const distinct = [...new Set(ids)];
      const resolved = distinct.flatMap((id) => guardrails.get(id) ?? []);
      return { resolved: resolved.map(({ id, version }) => ({ id, version })), missing: distinct.filter((id) => !guardrails.has(id)) };
    },

    async loadGuardrails(_scope, refs): Promise<GuardrailCheck> {
      const loaded = refs.flatMap((ref) => {
        const guardrail = guardrails.get(ref.id);
        return guardrail && guardrail.version === ref.version ? [guardrail] : [];
      });
      return {
        missing: refs.filter((ref) => !loaded.some((item) => item.id === ref.id)).map((ref) => `${ref.id}@${ref.version}`),
        evaluate: (answer) => evaluate(loaded, answer),
      };
    },

    async route() {
      return options.route ?? SCRIPTED_ROUTE;
    },

    async modelProvider(_scope, providerId) {
      const provider = providers.get(providerId);
      if (!provider) return null;
      return {
        id: provider.id,
        kind: provider.kind,
        complete: (request) => {
          modelRequests.push({ providerId, request });
          return provider.complete(request);
        },
      };
    },

    async conversationHistory(scope, limit) {
      if (!scope.conversationId || !options.conversations) return { messages: [], turns: 0 };
      const all = options.conversations.conversationMessages(scope.conversationId).map(({ role, content }) => ({ role, content }));
      return { messages: limit ? all.slice(-limit) : all, turns: all.filter((message) => message.role === "user").length };
    },

    async retrieveFacts(_scope, intent: RetrievalIntent) {
      return { facts: (options.facts ?? []).filter((fact) => intent.types.includes(fact.type)).slice(0, intent.limit ?? 10) };
    },

    runsInCommit: (manifest) => toolOf(manifest)?.runsInCommit === true,

    async invokeTool(call) {
      const tool = toolOf(call.manifest);
      const attempt = invocations.filter((record) => record.runId === call.scope.runId && record.callId === call.callId).length + 1;
      const record: ToolInvocationRecord = {
        toolId: call.manifest.id,
        version: call.manifest.version,
        runId: call.scope.runId,
        callId: call.callId,
        idempotencyKey: call.idempotencyKey,
        input: call.input,
        startTick: ++tick,
        endTick: null,
        result: null,
      };
      invocations.push(record);
      let result: ToolCallResult;
      try {
        result = tool?.handler
          ? await tool.handler(call.input, { callId: call.callId, idempotencyKey: call.idempotencyKey, signal: call.signal, scope: call.scope, attempt, tx: call.tx })
          : { ok: false, error: { kind: "tool-error", message: `tool ${call.manifest.id}@${call.manifest.version} has no handler in the memory environment` } };
      } catch (error) {
        // Like the HTTP invoker: a failure, an abort included, is a result, never a throw.
        result = { ok: false, error: { kind: "tool-error", message: call.signal.aborted ? `the call was aborted: ${messageOf(call.signal.reason)}` : `the tool failed: ${messageOf(error)}` } };
      }
      record.endTick = ++tick;
      record.result = result;
      return result;
    },
  };
}
