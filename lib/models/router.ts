/**
 * The capability router: which provider and model serve an agent.
 *
 * Capability entries are matched by their kind (default `llm-inference`) and their hard requirements (`needs`;
 * `tool-use` is added to an `llm-inference` entry when the agent has tools). The turn needs a model, so
 * `routeCapability` routes every `llm-inference` entry — one no provider can serve fails the route, naming the
 * entry — and answers with the decision of the first (an agent without one gets the default route of a bare
 * `llm-inference` entry). An entry of another kind never fails that route: it fails only the calls that need it
 * (`routeEmbedding` for `embedding`), and `capabilityWarnings` reports the ones no provider can serve, for
 * validation and registration to warn at their pointer. For one entry, the (provider, model) pairs that satisfy it
 * are kept. Among those: the agent's `preferredProvider` (+ `preferredModel`) when it fits — a soft hint, ignored
 * with a reason when it does not; otherwise normal providers in registry order (highest `prefer` score first), then
 * the kind's fallback (`dev-echo`, `dev-embed`). A provider with routing `explicit` (scripted) is a candidate only
 * when the agent names it. Pure: no I/O, deterministic for the same inputs.
 */
import type { AgentDefinition, Capability } from "@/lib/agents/validate-agent";
import { EMBEDDING } from "@/lib/models/embedding";
import { LLM_INFERENCE, type ModelInfo, type ProviderDescriptor } from "@/lib/models/registry";

export type RouteDecision = { providerId: string; model: string; reason: string };
/** `capability`: the index in `capabilities` of the entry no provider can serve. */
export type RouteFailure = { error: "no-provider"; message: string; capability: number };
export type RouteResult = RouteDecision | RouteFailure;

/** The definition fields routing reads. */
export type RoutableDefinition = Pick<AgentDefinition, "capabilities" | "tools" | "preferredProvider" | "preferredModel">;

/** Capability feature names that a provider's feature of another name satisfies. */
const FEATURE_ALIASES: Record<string, string[]> = {
  "structured-output": ["json-output"],
  "json-output": ["structured-output"],
};

/**
 * Tokens of the nominal call a `costPerCall` requirement is checked against (a call's real size is unknown
 * before it happens): 1,000 input and 1,000 output tokens at the model's list price.
 */
export const NOMINAL_CALL_TOKENS = { input: 1_000, output: 1_000 };

type Op = ">=" | ">" | "=" | "<=" | "<";
type Need = Record<string, unknown>;

function compare(actual: number, op: Op, expected: number): boolean {
  switch (op) {
    case ">=":
      return actual >= expected;
    case ">":
      return actual > expected;
    case "=":
      return actual === expected;
    case "<=":
      return actual <= expected;
    case "<":
      return actual < expected;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
const isOp = (value: unknown): value is Op => typeof value === "string" && [">=", ">", "=", "<=", "<"].includes(value);

function hasFeature(model: ModelInfo, feature: string): boolean {
  return model.features.includes(feature) || (FEATURE_ALIASES[feature] ?? []).some((alias) => model.features.includes(alias));
}

/** Why `model` of `provider` does not satisfy `need`, or null when it does. */
function needProblem(need: Need, provider: ProviderDescriptor, model: ModelInfo): string | null {
  if (typeof need.feature === "string") return hasFeature(model, need.feature) ? null : `lacks feature "${need.feature}"`;
  if (isRecord(need.contextWindow)) {
    const { op, value } = need.contextWindow;
    if (!isOp(op) || typeof value !== "number") return "has an unreadable contextWindow requirement";
    if (model.contextTokens === undefined) return "declares no context window";
    return compare(model.contextTokens, op, value) ? null : `context window ${model.contextTokens} is not ${op} ${value}`;
  }
  if (isRecord(need.costPerCall)) {
    const { op, usd } = need.costPerCall;
    if (!isOp(op) || typeof usd !== "number") return "has an unreadable costPerCall requirement";
    if (model.inputUsdPerMTok === undefined || model.outputUsdPerMTok === undefined) return "declares no prices";
    const cost = (model.inputUsdPerMTok * NOMINAL_CALL_TOKENS.input + model.outputUsdPerMTok * NOMINAL_CALL_TOKENS.output) / 1_000_000;
    return compare(cost, op, usd) ? null : `a nominal call costs ${cost} USD, not ${op} ${usd}`;
  }
  if (typeof need.region === "string") return `declares no region (needs "${need.region}")`;
  if (isRecord(need.p95LatencyMs)) return "declares no p95 latency";
  if (isRecord(need.providers)) {
    const allow = strings(need.providers.allow);
    const deny = strings(need.providers.deny);
    if (Array.isArray(need.providers.allow) && !allow.includes(provider.id)) return "is not in providers.allow";
    return deny.includes(provider.id) ? "is in providers.deny" : null;
  }
  if (isRecord(need.models)) {
    const allow = strings(need.models.allow);
    const deny = strings(need.models.deny);
    if (Array.isArray(need.models.allow) && !allow.includes(model.name)) return "is not in models.allow";
    return deny.includes(model.name) ? "is in models.deny" : null;
  }
  return `cannot satisfy the unknown requirement ${JSON.stringify(need)}`;
}

/** The hard requirements of a capability, plus `tool-use` for LLM inference when the agent has tools. */
function needsOf(capability: Capability, definition: RoutableDefinition): Need[] {
  const needs = (Array.isArray(capability.needs) ? capability.needs : []).filter(isRecord);
  const hasTools = Array.isArray(definition.tools) && definition.tools.length > 0 && kindOf(capability) === LLM_INFERENCE;
  if (hasTools && !needs.some((need) => need.feature === "tool-use")) return [...needs, { feature: "tool-use" }];
  return needs;
}

/** Whether the agent names `provider` (preferredProvider or a providers.allow need): what makes an explicit provider a candidate. */
function namesProvider(provider: ProviderDescriptor, definition: RoutableDefinition, needs: Need[]): boolean {
  if (definition.preferredProvider === provider.id) return true;
  return needs.some((need) => isRecord(need.providers) && strings(need.providers.allow).includes(provider.id));
}

function preferenceScore(capability: Capability, model: ModelInfo): number {
  const prefer = (Array.isArray(capability.prefer) ? capability.prefer : []).filter(isRecord);
  let score = 0;
  for (const preference of prefer) {
    if (typeof preference.feature !== "string" || typeof preference.weight !== "number") continue;
    if (preference.feature === "lower-cost" && model.inputUsdPerMTok !== undefined && model.outputUsdPerMTok !== undefined) {
      // Cheaper is better: scales the weight down as the nominal call's price grows (free = full weight).
      const cost = (model.inputUsdPerMTok * NOMINAL_CALL_TOKENS.input + model.outputUsdPerMTok * NOMINAL_CALL_TOKENS.output) / 1_000_000;
      score += preference.weight / (1 + cost * 100);
    } else if (hasFeature(model, preference.feature)) score += preference.weight;
  }
  return score;
}

const TIER: Record<ProviderDescriptor["routing"], number> = { normal: 0, explicit: 1, fallback: 2 };

type Candidate = { provider: ProviderDescriptor; model: ModelInfo; providerIndex: number; modelIndex: number; score: number };

const kindOf = (capability: Capability): string => (typeof capability.kind === "string" ? capability.kind : LLM_INFERENCE);

/**
 * Matches every `llm-inference` capability entry of the agent and answers with the provider and model for the first
 * (the model the turn calls), or explains which entry none can serve and why. An agent without an `llm-inference`
 * entry is routed as if it had a bare one (`{}`; a failure then names entry 0). Entries of other kinds are not
 * matched here: see `capabilityWarnings` and `routeEmbedding`.
 * `preferredProvider`/`preferredModel` win when they satisfy the capability; `dev-echo` (routing `fallback`)
 * serves only when nothing else fits.
 */
export function routeCapability(definition: RoutableDefinition, providers: readonly ProviderDescriptor[]): RouteResult {
  const entries = entriesOf(definition);
  const llm = entries.flatMap((capability, index) => (kindOf(capability) === LLM_INFERENCE ? [index] : []));
  if (llm.length === 0) {
    const route = routeOne({}, definition, providers);
    return "error" in route ? { ...route, capability: 0 } : route;
  }
  const routes = llm.map((index) => routeOne(entries[index], definition, providers));
  const failed = routes.findIndex((route) => "error" in route);
  if (failed >= 0) {
    const { message } = routes[failed] as Omit<RouteFailure, "capability">;
    const index = llm[failed];
    return { error: "no-provider", message: entries.length > 1 ? `/capabilities/${index}: ${message}` : message, capability: index };
  }
  return routes[0] as RouteDecision;
}

/** What validation and registration warn about: a capability entry no provider here can serve, at its JSON pointer. */
export type CapabilityWarning = { path: string; message: string };

/**
 * One warning per capability entry of a kind other than `llm-inference` that no provider can serve (no provider of
 * its kind, or none satisfying its needs), at `/capabilities/<index>`. Such an entry fails a turn only if the turn
 * needs it; `llm-inference` entries are not reported here (`routeCapability` fails for them).
 */
export function capabilityWarnings(definition: RoutableDefinition, providers: readonly ProviderDescriptor[]): CapabilityWarning[] {
  return entriesOf(definition).flatMap((capability, index) => {
    if (kindOf(capability) === LLM_INFERENCE) return [];
    const route = routeOne(capability, kindDefinition(definition, kindOf(capability), providers), providers);
    return "error" in route ? [{ path: `/capabilities/${index}`, message: route.message }] : [];
  });
}

/** An embedding route's failure: `capability` is the index of the agent's `embedding` entry, or null for the default route. */
export type EmbeddingRouteFailure = { error: "no-provider"; message: string; capability: number | null };
export type EmbeddingRouteResult = RouteDecision | EmbeddingRouteFailure;

/**
 * The embedding provider and model for an agent: the decision for its first `embedding` capability entry (needs and
 * prefer honoured; `preferredProvider`/`preferredModel` when they name an embedding provider or model, ignored
 * silently when they name a model provider's), or — when it has none — the route of a bare `{kind: "embedding"}`
 * (the same preferences honoured; else the first normal embedding provider, else `dev-embed`).
 */
export function routeEmbedding(definition: RoutableDefinition, providers: readonly ProviderDescriptor[]): EmbeddingRouteResult {
  const entries = entriesOf(definition);
  const index = entries.findIndex((capability) => kindOf(capability) === EMBEDDING);
  const route = routeOne(index < 0 ? { kind: EMBEDDING } : entries[index], kindDefinition(definition, EMBEDDING, providers), providers);
  return "error" in route ? { ...route, capability: index < 0 ? null : index } : route;
}

/**
 * The embedding route of a project with no agent in sight (the memory store embedding a fact): a bare
 * `{kind: "embedding"}` among `providers` (e.g. `providersForProject(tenantId, projectId)`) — the first normal
 * embedding provider and its first model, else `dev-embed`.
 */
export function defaultEmbeddingRoute(providers: readonly ProviderDescriptor[]): EmbeddingRouteResult {
  const route = routeOne({ kind: EMBEDDING }, { capabilities: [], tools: [] }, providers);
  return "error" in route ? { ...route, capability: null } : route;
}

/** The agent's capability entries (objects only), or one bare `llm-inference` entry when it lists none. */
function entriesOf(definition: RoutableDefinition): Capability[] {
  return Array.isArray(definition.capabilities) && definition.capabilities.length > 0 ? definition.capabilities.map((entry) => (isRecord(entry) ? entry : {})) : [{}];
}

/**
 * The definition as an entry of `kind` other than llm-inference sees it: `preferredProvider`/`preferredModel` kept
 * only when they name a provider of that kind or a model one offers (they usually name the turn's model).
 */
function kindDefinition(definition: RoutableDefinition, kind: string, providers: readonly ProviderDescriptor[]): RoutableDefinition {
  const ofKind = providers.filter((provider) => provider.capabilityKind === kind);
  const { preferredProvider, preferredModel } = definition;
  const namesProvider = preferredProvider !== undefined && ofKind.some((provider) => provider.id === preferredProvider);
  const namesModel = preferredModel !== undefined && ofKind.some((provider) => (!namesProvider || provider.id === preferredProvider) && provider.models.some((model) => model.name === preferredModel));
  return { capabilities: definition.capabilities, tools: definition.tools, preferredProvider: namesProvider ? preferredProvider : undefined, preferredModel: namesModel ? preferredModel : undefined };
}

/** The provider and model for one capability entry, or why none can serve it. */
function routeOne(capability: Capability, definition: RoutableDefinition, providers: readonly ProviderDescriptor[]): RouteDecision | Omit<RouteFailure, "capability"> {
  const kind = kindOf(capability);
  const needs = needsOf(capability, definition);
  const ofKind = providers.filter((provider) => provider.capabilityKind === kind);
  if (ofKind.length === 0) return { error: "no-provider", message: `no provider serves capability kind "${kind}" (providers: ${providers.map((p) => `${p.id} serves ${p.capabilityKind}`).join(", ") || "none"})` };

  const candidates: Candidate[] = [];
  const rejections: string[] = [];
  ofKind.forEach((provider, providerIndex) => {
    if (provider.routing === "explicit" && !namesProvider(provider, definition, needs)) {
      rejections.push(`${provider.id} serves only agents that name it (preferredProvider)`);
      return;
    }
    const modelProblems: string[] = [];
    provider.models.forEach((model, modelIndex) => {
      const problem = needs.map((need) => needProblem(need, provider, model)).find((p) => p !== null);
      if (problem) modelProblems.push(`model "${model.name}" ${problem}`);
      else candidates.push({ provider, model, providerIndex, modelIndex, score: preferenceScore(capability, model) });
    });
    if (modelProblems.length === provider.models.length) rejections.push(`${provider.id}: ${modelProblems.join("; ") || "offers no model"}`);
  });
  if (candidates.length === 0) {
    return { error: "no-provider", message: `no provider can serve the agent's capability (${kind}${needs.length ? `, needs ${needs.map((n) => JSON.stringify(n)).join(", ")}` : ""}): ${rejections.join("; ")}` };
  }

  candidates.sort((a, b) => TIER[a.provider.routing] - TIER[b.provider.routing] || b.score - a.score || a.providerIndex - b.providerIndex || a.modelIndex - b.modelIndex);
  const { preferredProvider, preferredModel } = definition;
  const notes: string[] = [];

  if (preferredProvider) {
    const own = candidates.filter((c) => c.provider.id === preferredProvider);
    if (own.length) {
      const exact = preferredModel ? own.find((c) => c.model.name === preferredModel) : undefined;
      if (exact) return decide(exact, `preferred provider "${preferredProvider}" and model "${preferredModel}" satisfy the capability`);
      const note = preferredModel ? `; preferred model "${preferredModel}" ${modelAbsence(preferredModel, providers.find((p) => p.id === preferredProvider))}, so its best model is used` : "";
      return decide(own[0], `preferred provider "${preferredProvider}" satisfies the capability${note}`);
    }
    const known = providers.find((p) => p.id === preferredProvider);
    notes.push(`preferred provider "${preferredProvider}" ${known ? "does not satisfy the capability" : "is not configured"}, so it was ignored`);
  } else if (preferredModel) {
    const match = candidates.find((c) => c.model.name === preferredModel && c.provider.routing !== "fallback");
    if (match) return decide(match, `preferred model "${preferredModel}" satisfies the capability`);
    notes.push(`preferred model "${preferredModel}" is not offered by a provider that satisfies the capability, so it was ignored`);
  }

  const chosen = candidates[0];
  const why = chosen.provider.routing === "fallback" ? `no other provider satisfies the capability; "${chosen.provider.id}" is the fallback` : `"${chosen.provider.id}" is the first provider that satisfies the capability`;
  return decide(chosen, [why, ...notes].join("; "));
}

function modelAbsence(name: string, provider: ProviderDescriptor | undefined): string {
  return provider?.models.some((m) => m.name === name) ? "does not satisfy the capability" : "is not offered";
}

function decide(candidate: Candidate, reason: string): RouteDecision {
  return { providerId: candidate.provider.id, model: candidate.model.name, reason };
}

/** Whether a route result is a decision. */
export const isRouted = (result: RouteResult | EmbeddingRouteResult): result is RouteDecision => !("error" in result);
