/**
 * The kernel's environment on the product's services: the registry (agents, tools, built-in tools, guardrails),
 * the model providers of the deployment and the tenant, the memory store, conversations, and the tool invokers.
 */
import { getDb, type DbTx } from "@/lib/db";
import type { AgentDefinition } from "@/lib/agents/validate-agent";
import { isRouted, routeCapability, type RouteResult } from "@/lib/models/router";
import { resolveAgentTools } from "@/lib/services/agent-resolution";
import { catalogDocument } from "@/lib/services/catalog";
import { resolveCallConnections } from "@/lib/services/connections";
import { resolveGuardrails } from "@/lib/services/guardrails";
import { evaluateGuardrailsSafely } from "@/lib/guardrails/evaluate";
import type { GuardrailDefinition } from "@/lib/guardrails/definition";
import { readProjectFacts, retrieveFacts, type QueryEmbedding, type RetrievedFact } from "@/lib/services/memory";
import { agentEmbeddingRoute, embedTexts, type EmbeddingRoute } from "@/lib/services/fact-embeddings";
import { publishDelta } from "@/lib/services/live-deltas";
import { publishToolLive } from "@/lib/services/live-tool-events";
import { instantiateProvider, providersForProject } from "@/lib/services/model-providers";
import type { ProviderDescriptor } from "@/lib/models/registry";
import type { ModelProvider } from "@/lib/models/provider";
import { observeModelCall, observeToolCall } from "@/lib/services/metrics";
import { traceModelCall, traceToolCall } from "@/lib/services/tracing";
import { resolveSecretValue } from "@/lib/services/secrets";
import { getBuiltinTool, invokeNativeTool, isBuiltinToolId } from "@/lib/tools/native";
import { invokeHttpTool } from "@/lib/tools/invokers/http";
import { invokeHandlerTool } from "@/lib/tools/handler/invoke";
import { invokeMcpTool } from "@/lib/tools/mcp/invoke";
import { mcpConnectionConfig } from "@/lib/services/mcp-endpoints";
import { prepareArtifact } from "@/lib/services/artifacts";
import { notInvocableMessage, toolInvocability, toolInvoker } from "@/lib/tools/invocability";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import type { KernelEnvironment, PausedOutcome, ToolInvocation } from "@/lib/kernel/environment";
import type { ToolCallResult, TurnFact } from "@/lib/kernel/types";

/** Parsed documents by catalog row id: a registered version never changes, only its status does. */
const documents = new Map<string, { text: string; value: unknown }>();

function parseCached(rowId: string, text: string): unknown {
  const cached = documents.get(rowId);
  if (cached && cached.text === text) return cached.value;
  if (documents.size > 2000) documents.clear();
  const value: unknown = JSON.parse(text);
  documents.set(rowId, { text, value });
  return value;
}

/** Loaded oci manifests with their recorded digest, by catalog row id (a version's digest never changes). */
const withDigests = new Map<string, ToolManifest>();

function withDigest(rowId: string, manifest: ToolManifest, digest: string): ToolManifest {
  let loaded = withDigests.get(rowId);
  if (!loaded || loaded.codeArtifactRef?.kind !== "oci" || loaded.codeArtifactRef.digest !== digest) {
    if (withDigests.size > 2000) withDigests.clear();
    loaded = { ...manifest, codeArtifactRef: { ...(manifest.codeArtifactRef as Extract<ToolManifest["codeArtifactRef"], { kind: "oci" }>), digest } };
    withDigests.set(rowId, loaded);
  }
  return loaded;
}

/** Every tool call, timed by transport (lib/services/metrics.ts). */
async function invokeTool(call: ToolInvocation): Promise<ToolCallResult | PausedOutcome> {
  const started = performance.now();
  const transport = toolInvoker(call.manifest);
  let outcome: "ok" | "error" | "paused" = "error";
  try {
    const traced = { toolId: call.manifest.id, version: call.manifest.version, callId: call.callId, transport, input: call.input };
    const result = await traceToolCall(traced, () => invokeToolUntimed(call), (result) => ("paused" in result ? { paused: true } : result.ok ? { ok: true } : { ok: false, kind: result.error.kind, reason: result.error.reason }));
    outcome = "paused" in result ? "paused" : result.ok ? "ok" : "error";
    return result;
  } finally {
    observeToolCall(transport, (performance.now() - started) / 1000, outcome);
  }
}

/** Model providers whose calls are timed (lib/services/metrics.ts), one wrapper per provider object. */
const timedProviders = new WeakMap<ModelProvider, ModelProvider>();

function timed(provider: ModelProvider | null): ModelProvider | null {
  if (!provider) return provider;
  let wrapper = timedProviders.get(provider);
  if (!wrapper) {
    const complete = async (request: Parameters<ModelProvider["complete"]>[0]) => {
      const started = performance.now();
      let ok = false;
      try {
        const response = await traceModelCall(provider, request, () => provider.complete(request));
        ok = true;
        return response;
      } finally {
        observeModelCall(provider.kind, (performance.now() - started) / 1000, ok);
      }
    };
    // Everything else is the provider's own, called on the provider itself (its private fields stay reachable).
    wrapper = new Proxy(provider, {
      get(target, property) {
        if (property === "complete") return complete;
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    timedProviders.set(provider, wrapper);
  }
  return wrapper;
}

async function invokeToolUntimed(call: ToolInvocation): Promise<ToolCallResult | PausedOutcome> {
  const { manifest, scope } = call;
  const invocability = toolInvocability(manifest);
  if (!invocability.invocable) return { ok: false, error: { kind: "tool-error", message: notInvocableMessage(manifest, invocability.reason), reason: invocability.failureReason ?? "transport-unavailable" } };
  if (invocability.invoker === "native") {
    return invokeNativeTool(manifest, call.input, { tenantId: scope.tenantId, projectId: scope.projectId, conversationId: scope.conversationId, runId: scope.runId, userId: scope.userId, now: () => new Date(), signal: call.signal, db: call.tx as DbTx | undefined });
  }
  // Connections (lib/services/connections.ts), resolved before anything is sent: a missing one fails the call here.
  const connections = await resolveCallConnections(manifest, scope);
  if (!connections.ok) return connections;
  if (invocability.invoker === "http" && manifest.spec) {
    const result = await invokeHttpTool(manifest, call.input, {
      resolveSecret: (ref) => resolveSecretValue(scope.tenantId, ref.name),
      idempotencyKey: call.idempotencyKey,
      signal: call.signal,
      connections: connections.value,
    });
    if (result.ok) return { ok: true, output: result.output };
    const kind = result.error.kind === "invalid-arguments" ? "invalid-arguments" : "tool-error";
    return { ok: false, error: { kind, message: result.error.message, ...(kind !== result.error.kind ? { reason: result.error.kind } : {}) } };
  }
  if (invocability.invoker === "handler") {
    const ref = manifest.codeArtifactRef;
    let artifact: { root: string; modulePath: string } | undefined;
    if (ref?.kind === "oci") {
      // Pulled, verified and unpacked on first use (nothing runs when any of it fails).
      const prepared = await prepareArtifact(scope.tenantId, ref, ref.digest, call.signal);
      if (!prepared.ok) return { ok: false, error: { kind: "tool-error", message: prepared.message, reason: prepared.code } };
      artifact = { root: prepared.root, modulePath: prepared.modulePath };
    }
    const result = await invokeHandlerTool(manifest, call.input, {
      ...(artifact ? { artifact } : {}),
      idempotencyKey: call.idempotencyKey,
      signal: call.signal,
      resolveSecret: (name) => resolveSecretValue(scope.tenantId, name),
      log: (line) => call.log?.(line),
      ...(call.progress ? { progress: call.progress } : {}),
      connections: connections.value,
      needs: { tenantId: scope.tenantId, projectId: scope.projectId, runId: scope.runId, conversationId: scope.conversationId, readFacts: (type, query) => readProjectFacts(scope, type, query) },
      ...(call.pause ? { pause: call.pause } : {}),
    });
    if (result.ok && result.paused) return { paused: result.paused };
    return result.ok ? { ok: true, output: result.output } : { ok: false, error: { kind: "tool-error", message: result.error.message, reason: result.error.reason } };
  }
  if (invocability.invoker === "mcp" && manifest.mcpEndpoint) {
    const endpoint = manifest.mcpEndpoint;
    const result = await invokeMcpTool(manifest, call.input, { tenantId: scope.tenantId, signal: call.signal, config: () => mcpConnectionConfig(scope.tenantId, scope.projectId, endpoint), connections: connections.value });
    if (result.ok) return result;
    return { ok: false, error: { kind: result.error.kind, message: result.error.message, ...(result.error.kind === "tool-error" ? { reason: result.error.reason } : {}) } };
  }
  // An invoker the predicate lists as available without a branch here is a programming error.
  throw new Error(`no invoker for ${invocability.invoker} tools`);
}

/** The provider list a route was chosen from, while the route object lives: no second lookup. */
const routedFrom = new WeakMap<RouteResult, readonly ProviderDescriptor[]>();
/**
 * Routing decisions by provider list and definition: a pure function of both, and both stay the same objects while
 * nothing changes (the provider list of `providersForProject`, the definition of the cached agent version).
 */
const routes = new WeakMap<readonly ProviderDescriptor[], WeakMap<object, RouteResult>>();

/** Built-in tool versions known to have no registration of the same id in a project (bounded by clearing). */
const unregisteredBuiltins = new Set<string>();

/** Query vectors of the last turns, by tenant, model and text: a turn whose intents all search by meaning embeds its query once. */
const queryVectors = new Map<string, Promise<QueryEmbedding>>();
const MAX_QUERY_VECTORS = 200;

function queryEmbedding(tenantId: string, route: EmbeddingRoute, text: string): Promise<QueryEmbedding> {
  const key = JSON.stringify([tenantId, route.decision.providerId, route.decision.model, text]);
  let vector = queryVectors.get(key);
  if (!vector) {
    vector = embedTexts(tenantId, route, [text]).then((answer) => ({ vector: answer.vectors[0], providerId: answer.providerId, model: answer.model, inputTokens: answer.inputTokens, costUsd: answer.costUsd }));
    vector.catch(() => queryVectors.delete(key));
    if (queryVectors.size >= MAX_QUERY_VECTORS) queryVectors.delete(queryVectors.keys().next().value as string);
    queryVectors.set(key, vector);
  }
  return vector;
}

export const dbKernelEnvironment: KernelEnvironment = {
  now: () => new Date(),

  publishDelta(scope, delta) {
    publishDelta(scope.runId, delta);
  },

  publishToolLive(scope, event) {
    publishToolLive(scope.runId, event);
  },

  async loadAgent(scope, agentId, version) {
    // Any status: a version unregistered after the run started still runs to its end. Versions never change, so
    // the document comes from the process's cache after its first read.
    const row = await catalogDocument(scope, "agent", agentId, version);
    return row ? (parseCached(row.id, row.document) as AgentDefinition) : null;
  },

  resolveTools: (scope, definition) => resolveAgentTools(scope, definition),

  async loadTool(scope, toolId, version) {
    // A built-in id can no longer be registered, so a tenant without a (legacy) registration of it never gets one:
    // that answer is kept too.
    const builtinKey = isBuiltinToolId(toolId) ? `${scope.tenantId}\u0000${scope.projectId}\u0000${toolId}\u0000${version}` : null;
    const row = builtinKey && unregisteredBuiltins.has(builtinKey) ? null : await catalogDocument(scope, "tool", toolId, version);
    if (!row && builtinKey) {
      if (unregisteredBuiltins.size > 10_000) unregisteredBuiltins.clear();
      unregisteredBuiltins.add(builtinKey);
    }
    if (row) {
      const manifest = parseCached(row.id, row.document) as ToolManifest;
      // An oci handler runs the digest its version recorded at registration.
      return row.artifactDigest && manifest.codeArtifactRef?.kind === "oci" ? withDigest(row.id, manifest, row.artifactDigest) : manifest;
    }
    return isBuiltinToolId(toolId) ? (getBuiltinTool(toolId, version) ?? null) : null;
  },

  async resolveGuardrails(scope, ids) {
    if (!ids.length) return { resolved: [], missing: [] };
    const { resolved, missing } = await resolveGuardrails(scope, ids);
    return { resolved: resolved.map((guardrail) => ({ id: guardrail.id, version: guardrail.version })), missing };
  },

  async loadGuardrails(scope, refs) {
    if (!refs.length) return { missing: [], evaluate: async () => [] };
    const db = await getDb();
    const rows = await db.catalogVersion.findMany({
      where: { tenantId: scope.tenantId, projectId: scope.projectId, kind: "guardrail", OR: refs.map((ref) => ({ entryId: ref.id, version: ref.version })) },
      select: { id: true, entryId: true, version: true, document: true },
    });
    const loaded = refs.flatMap((ref) => {
      const row = rows.find((candidate) => candidate.entryId === ref.id && candidate.version === ref.version);
      return row ? [{ id: ref.id, version: ref.version, definition: parseCached(row.id, row.document) as GuardrailDefinition }] : [];
    });
    return {
      missing: refs.filter((ref) => !loaded.some((item) => item.id === ref.id && item.version === ref.version)).map((ref) => `${ref.id}@${ref.version}`),
      // Regex checks run in a worker with a timeout: a catastrophic pattern cannot stall the server.
      evaluate: (answer) => evaluateGuardrailsSafely(loaded, answer),
    };
  },

  async route(scope, definition) {
    const descriptors = await providersForProject(scope.tenantId, scope.projectId);
    let byDefinition = routes.get(descriptors);
    if (!byDefinition) routes.set(descriptors, (byDefinition = new WeakMap()));
    let route = byDefinition.get(definition);
    if (!route) {
      route = routeCapability(definition, descriptors);
      byDefinition.set(definition, route);
      routedFrom.set(route, descriptors);
    }
    return route;
  },

  async routedProvider(scope, route) {
    const descriptors = routedFrom.get(route);
    if (!descriptors || !isRouted(route)) return isRouted(route) ? dbKernelEnvironment.modelProvider(scope, route.providerId) : null;
    const descriptor = descriptors.find((provider) => provider.id === route.providerId);
    return timed(descriptor ? await instantiateProvider(scope.tenantId, descriptor) : null);
  },

  async modelProvider(scope, providerId) {
    const descriptor = (await providersForProject(scope.tenantId, scope.projectId)).find((provider) => provider.id === providerId);
    return timed(descriptor ? await instantiateProvider(scope.tenantId, descriptor) : null);
  },

  async conversationHistory(scope, limit) {
    if (!scope.conversationId) return { messages: [], turns: 0 };
    const db = await getDb();
    const [rows, turns] = await Promise.all([
      db.conversationMessage.findMany({ where: { conversationId: scope.conversationId }, orderBy: { seq: "desc" }, ...(limit ? { take: limit } : {}), select: { role: true, content: true } }),
      db.conversationMessage.count({ where: { conversationId: scope.conversationId, role: "user" } }),
    ]);
    return { messages: rows.reverse().map((row) => ({ role: row.role === "assistant" ? "assistant" : "user", content: row.content })), turns };
  },

  async retrieveFacts(scope, intent, query, definition) {
    const factScope = { tenantId: scope.tenantId, projectId: scope.projectId, conversationId: scope.conversationId };
    const turnFact = (fact: RetrievedFact): TurnFact => ({ id: fact.id, type: fact.type, content: fact.content, createdAt: fact.createdAt, score: fact.score, foundBy: fact.foundBy });
    if ((intent.mode ?? "keyword") === "keyword") return { facts: (await retrieveFacts(factScope, intent, query)).facts.map(turnFact) };
    const route = await agentEmbeddingRoute(scope.tenantId, scope.projectId, definition);
    // The turn needs an embedding model that no provider here serves: it fails, as a turn whose model none serves.
    if ("error" in route) return { facts: [], failure: { code: "no-provider", message: `retrieval intent ${definition.retrieval.indexOf(intent)} searches by meaning and no embedding provider serves the agent: ${route.error}` } };
    // A provider that fails now (an outage) does not fail the turn: nothing is searched by meaning, and the turn says why.
    const warnings: string[] = [];
    let embedding: QueryEmbedding | null = null;
    try {
      embedding = await queryEmbedding(scope.tenantId, route, query);
    } catch (error) {
      warnings.push(`the turn's query could not be embedded with ${route.decision.providerId}/${route.decision.model}, so nothing was searched by meaning: ${error instanceof Error ? error.message : String(error)}`);
    }
    const found = await retrieveFacts(factScope, intent, query, { embedding });
    const used = embedding ? { inputTokens: embedding.inputTokens ?? 0, costUsd: embedding.costUsd ?? 0 } : {};
    return { facts: found.facts.map(turnFact), retrieval: { embedding: { providerId: route.decision.providerId, model: route.decision.model, ...used }, skipped: found.skipped, warnings } };
  },

  runsInCommit: (manifest) => toolInvoker(manifest) === "native",

  // Built-in tools that change nothing (current-time, recall) need no transaction of their own.
  needsCommitTransaction: (manifest) => manifest.mutating !== false,

  invokeTool,
};
