import { describe, expect, it } from "vitest";
import { listProviders, type ProviderDescriptor } from "./registry";
import { capabilityWarnings, defaultEmbeddingRoute, routeCapability, routeEmbedding, type RoutableDefinition } from "./router";

const withKeys = { OPENAI_API_KEY: "sk-test-openai", ANTHROPIC_API_KEY: "sk-ant-test", OPENAI_MODELS: "gpt-4o-mini,gpt-4o", KINDGI_DEV_PROVIDERS: "1" };
const agent = (overrides: Partial<RoutableDefinition> = {}): RoutableDefinition => ({ capabilities: [{}], tools: [], ...overrides });
const tool = { id: "acme.lookup", version: "^1.0.0" };

describe("routeCapability", () => {
  it("routes to the first non-dev provider in registry order when nothing is preferred", () => {
    expect(routeCapability(agent(), listProviders(withKeys))).toMatchObject({ providerId: "openai", model: "gpt-4o-mini" });
    expect(routeCapability(agent(), listProviders({ ANTHROPIC_API_KEY: "k" }))).toMatchObject({ providerId: "anthropic", model: "claude-sonnet-4-5" });
  });

  it("honours preferredProvider and preferredModel when they satisfy the capability", () => {
    const routed = routeCapability(agent({ preferredProvider: "anthropic" }), listProviders(withKeys));
    expect(routed).toMatchObject({ providerId: "anthropic", model: "claude-sonnet-4-5" });
    expect((routed as { reason: string }).reason).toContain('preferred provider "anthropic"');
    expect(routeCapability(agent({ preferredProvider: "openai", preferredModel: "gpt-4o" }), listProviders(withKeys))).toMatchObject({ providerId: "openai", model: "gpt-4o" });
    // preferredModel alone picks the provider offering it.
    expect(routeCapability(agent({ preferredModel: "gpt-4o" }), listProviders(withKeys))).toMatchObject({ providerId: "openai", model: "gpt-4o" });
  });

  it("keeps the preferred provider but not a preferred model it does not offer", () => {
    const routed = routeCapability(agent({ preferredProvider: "openai", preferredModel: "claude-sonnet-4-5" }), listProviders(withKeys));
    expect(routed).toMatchObject({ providerId: "openai", model: "gpt-4o-mini" });
    expect((routed as { reason: string }).reason).toContain('preferred model "claude-sonnet-4-5" is not offered');
  });

  it("ignores a preferred provider that does not satisfy the capability, or is not configured, and routes normally", () => {
    const providers = listProviders(withKeys);
    const denied = routeCapability(agent({ preferredProvider: "anthropic", capabilities: [{ needs: [{ providers: { deny: ["anthropic"] } }] }] }), providers);
    expect(denied).toMatchObject({ providerId: "openai" });
    expect((denied as { reason: string }).reason).toContain('preferred provider "anthropic" does not satisfy the capability');
    const contextTooSmall = routeCapability(agent({ preferredProvider: "openai", capabilities: [{ needs: [{ contextWindow: { op: ">=", value: 150_000 } }] }] }), providers);
    expect(contextTooSmall).toMatchObject({ providerId: "anthropic" });
    const unknown = routeCapability(agent({ preferredProvider: "mistral" }), providers);
    expect(unknown).toMatchObject({ providerId: "openai" });
    expect((unknown as { reason: string }).reason).toContain('"mistral" is not configured');
  });

  it("uses dev-echo only as the fallback, and when explicitly preferred", () => {
    const routed = routeCapability(agent({ tools: [tool] }), listProviders({}));
    expect(routed).toMatchObject({ providerId: "dev-echo", model: "dev-echo" });
    expect((routed as { reason: string }).reason).toContain("fallback");
    // With a real provider configured, dev-echo is never chosen unless the agent asks for it.
    expect(routeCapability(agent({ tools: [tool] }), listProviders({ OPENAI_API_KEY: "k" }))).toMatchObject({ providerId: "openai" });
    expect(routeCapability(agent({ preferredProvider: "dev-echo" }), listProviders({ OPENAI_API_KEY: "k" }))).toMatchObject({ providerId: "dev-echo" });
    // A real provider that does not fit leaves dev-echo as the fallback.
    expect(routeCapability(agent({ capabilities: [{ needs: [{ providers: { deny: ["openai"] } }] }] }), listProviders({ OPENAI_API_KEY: "k" }))).toMatchObject({ providerId: "dev-echo" });
  });

  it("routes to scripted only when the agent names it", () => {
    const providers = listProviders({ KINDGI_DEV_PROVIDERS: "1" });
    expect(routeCapability(agent(), providers)).toMatchObject({ providerId: "dev-echo" });
    expect(routeCapability(agent({ preferredProvider: "scripted" }), providers)).toMatchObject({ providerId: "scripted", model: "scripted" });
    expect(routeCapability(agent({ capabilities: [{ needs: [{ providers: { allow: ["scripted"] } }] }] }), providers)).toMatchObject({ providerId: "scripted" });
    const jsonOnly = routeCapability(agent({ capabilities: [{ needs: [{ feature: "json-output" }] }] }), providers);
    expect(jsonOnly).toMatchObject({ error: "no-provider" });
    expect((jsonOnly as { message: string }).message).toContain("scripted serves only agents that name it");
  });

  it("requires tool-use for an agent with tools", () => {
    const noTools: ProviderDescriptor[] = [{ id: "plain", kind: "openai-compatible", capabilityKind: "llm-inference", models: [{ name: "plain-1", features: [] }], source: "environment", dev: false, routing: "normal" }];
    expect(routeCapability(agent(), noTools)).toMatchObject({ providerId: "plain" });
    const failed = routeCapability(agent({ tools: [tool] }), noTools);
    expect(failed).toMatchObject({ error: "no-provider" });
    expect((failed as { message: string }).message).toContain('lacks feature "tool-use"');
  });

  it("reports no-provider for a feature nobody has and for a kind nobody serves", () => {
    const vision = routeCapability(agent({ capabilities: [{ needs: [{ feature: "vision" }] }] }), listProviders(withKeys));
    expect(vision).toMatchObject({ error: "no-provider" });
    expect((vision as { message: string }).message).toMatch(/dev-echo: model "dev-echo" lacks feature "vision"/);
    // A kind nobody serves does not fail the turn's route (the turn does not need it): it is a warning.
    const gpuAgent = agent({ capabilities: [{ kind: "gpu-compute", needs: [{ feature: "tool-use" }] }] });
    expect(routeCapability(gpuAgent, listProviders(withKeys))).toMatchObject({ providerId: "openai", model: "gpt-4o-mini" });
    expect(capabilityWarnings(gpuAgent, listProviders(withKeys))).toEqual([{ path: "/capabilities/0", message: expect.stringContaining('no provider serves capability kind "gpu-compute"') }]);
    expect(routeCapability(agent({ capabilities: [{ needs: [{ region: "eu-only" }] }] }), listProviders({}))).toMatchObject({ error: "no-provider" });
  });

  it("checks context windows, cost, model allow/deny lists; structured-output is served by json-output", () => {
    const providers = listProviders(withKeys);
    expect(routeCapability(agent({ capabilities: [{ needs: [{ models: { allow: ["gpt-4o"] } }] }] }), providers)).toMatchObject({ providerId: "openai", model: "gpt-4o" });
    expect(routeCapability(agent({ capabilities: [{ needs: [{ models: { deny: ["gpt-4o-mini"] } }] }] }), providers)).toMatchObject({ providerId: "openai", model: "gpt-4o" });
    // A nominal call (1k in + 1k out) on claude-sonnet-4-5 costs 0.018 USD.
    expect(routeCapability(agent({ capabilities: [{ needs: [{ costPerCall: { op: ">=", usd: 0.015 } }] }] }), providers)).toMatchObject({ providerId: "anthropic" });
    expect(routeCapability(agent({ capabilities: [{ needs: [{ feature: "structured-output" }] }] }), providers)).toMatchObject({ providerId: "openai" });
    expect(routeCapability(agent({ capabilities: [{ needs: [{ teleport: true }] }] }), providers)).toMatchObject({ error: "no-provider" });
  });

  it("orders by prefer weights among normal providers, never above the fallback tier", () => {
    const providers = listProviders(withKeys);
    // Cheaper wins under lower-cost: gpt-4o-mini over claude and gpt-4o.
    expect(routeCapability(agent({ capabilities: [{ prefer: [{ feature: "lower-cost", weight: 1 }] }] }), providers)).toMatchObject({ providerId: "openai", model: "gpt-4o-mini" });
    const custom: ProviderDescriptor[] = [
      { id: "a", kind: "openai-compatible", capabilityKind: "llm-inference", models: [{ name: "a-1", features: [] }], source: "environment", dev: false, routing: "normal" },
      { id: "b", kind: "openai-compatible", capabilityKind: "llm-inference", models: [{ name: "b-1", features: ["vision"] }], source: "environment", dev: false, routing: "normal" },
      ...listProviders({}),
    ];
    expect(routeCapability(agent({ capabilities: [{ prefer: [{ feature: "vision", weight: 2 }] }] }), custom)).toMatchObject({ providerId: "b" });
    expect(routeCapability(agent(), custom)).toMatchObject({ providerId: "a" });
  });

  it("matches every capability entry by its kind, not only the first, and names the entry none can serve", () => {
    const embedder: ProviderDescriptor = { id: "embedder", kind: "openai-compatible", capabilityKind: "embedding", models: [{ name: "embed-1", features: ["multilingual"] }], source: "environment", dev: false, routing: "normal" };
    const providers = [...listProviders(withKeys), embedder];
    // The turn's model is the llm-inference entry's, wherever it stands; the embedding entry is routed too.
    const both = agent({ tools: [tool], capabilities: [{ kind: "embedding", needs: [{ feature: "multilingual" }] }, { needs: [{ models: { allow: ["gpt-4o"] } }] }] });
    expect(routeCapability(both, providers)).toMatchObject({ providerId: "openai", model: "gpt-4o" });
    // tool-use is an LLM feature: it is not asked of the embedding entry.
    expect(routeCapability(agent({ tools: [tool], capabilities: [{}, { kind: "embedding" }] }), providers)).toMatchObject({ providerId: "openai" });
    // An entry of another kind that no provider serves does not fail the route; it is a warning at its index.
    const gpu = agent({ capabilities: [{}, { kind: "gpu-compute" }] });
    expect(routeCapability(gpu, providers)).toMatchObject({ providerId: "openai" });
    expect(capabilityWarnings(gpu, providers)).toEqual([{ path: "/capabilities/1", message: expect.stringMatching(/^no provider serves capability kind "gpu-compute"/) }]);
    const unmet = agent({ capabilities: [{}, { kind: "embedding", needs: [{ feature: "vision" }] }] });
    expect(routeCapability(unmet, providers)).toMatchObject({ providerId: "openai" });
    expect(capabilityWarnings(unmet, providers)).toEqual([{ path: "/capabilities/1", message: expect.stringContaining('model "embed-1" lacks feature "vision"') }]);
    expect(routeEmbedding(unmet, providers)).toEqual({ error: "no-provider", capability: 1, message: expect.stringContaining('model "embed-1" lacks feature "vision"') });
    // A second llm-inference entry none can serve still fails the route, at its index.
    const secondLlm = routeCapability(agent({ capabilities: [{}, { needs: [{ feature: "teleport" }] }] }), providers);
    expect(secondLlm).toMatchObject({ error: "no-provider", capability: 1 });
    expect(capabilityWarnings(agent({ capabilities: [{}, { needs: [{ feature: "teleport" }] }] }), providers)).toEqual([]);
    // Without an llm-inference entry, the turn's model is the default route of a bare one (tools ask for tool-use).
    expect(routeCapability(agent({ tools: [tool], capabilities: [{ kind: "embedding" }] }), providers)).toMatchObject({ providerId: "openai", model: "gpt-4o-mini" });
    const noModel = routeCapability(agent({ capabilities: [{ kind: "embedding" }] }), [embedder]);
    expect(noModel).toMatchObject({ error: "no-provider", capability: 0 });
  });

  it("is deterministic: the same inputs give the same answer", () => {
    const providers = listProviders(withKeys);
    const definition = agent({ tools: [tool], preferredProvider: "anthropic" });
    expect(routeCapability(definition, providers)).toEqual(routeCapability(definition, providers));
  });
});

describe("routeEmbedding and defaultEmbeddingRoute", () => {
  const embedder = (id: string, models: string[], routing: ProviderDescriptor["routing"] = "normal"): ProviderDescriptor => ({
    id,
    kind: "openai-compatible-embeddings",
    capabilityKind: "embedding",
    models: models.map((name) => ({ name, features: [] })),
    source: "tenant",
    dev: false,
    routing,
  });

  it("serves embedding with dev-embed when no other embedding provider is configured, as dev-echo serves llm-inference", () => {
    const providers = listProviders({ ANTHROPIC_API_KEY: "k" });
    const route = defaultEmbeddingRoute(providers);
    expect(route).toMatchObject({ providerId: "dev-embed", model: "dev-embed" });
    expect((route as { reason: string }).reason).toContain('"dev-embed" is the fallback');
    expect(routeEmbedding(agent(), providers)).toEqual(route);
    expect(routeEmbedding(agent({ capabilities: [{}, { kind: "embedding" }] }), providers)).toMatchObject({ providerId: "dev-embed" });
  });

  it("prefers the first normal embedding provider: the environment's OpenAI, or a tenant's before it", () => {
    expect(defaultEmbeddingRoute(listProviders(withKeys))).toMatchObject({ providerId: "openai-embeddings", model: "text-embedding-3-small" });
    const providers = [embedder("ollama-embed", ["nomic-embed-text"]), ...listProviders(withKeys)];
    expect(defaultEmbeddingRoute(providers)).toMatchObject({ providerId: "ollama-embed", model: "nomic-embed-text" });
    // The turn's model is not affected by embedding providers.
    expect(routeCapability(agent(), providers)).toMatchObject({ providerId: "openai", model: "gpt-4o-mini" });
  });

  it("routes the agent's first embedding entry with its needs and prefer weights", () => {
    const providers = [embedder("a", ["a-small"]), embedder("b", ["b-large", "b-small"]), ...listProviders({})];
    expect(routeEmbedding(agent({ capabilities: [{}, { kind: "embedding", needs: [{ providers: { allow: ["b"] } }] }] }), providers)).toMatchObject({ providerId: "b", model: "b-large" });
    expect(routeEmbedding(agent({ capabilities: [{ kind: "embedding", needs: [{ models: { allow: ["b-small"] } }] }, { kind: "embedding" }] }), providers)).toMatchObject({ providerId: "b", model: "b-small" });
    // dev-embed only when nothing else fits; a need nothing meets fails the embedding route only, at its index.
    expect(routeEmbedding(agent({ capabilities: [{ kind: "embedding", needs: [{ providers: { deny: ["a", "b"] } }] }] }), providers)).toMatchObject({ providerId: "dev-embed" });
    expect(routeEmbedding(agent({ capabilities: [{}, { kind: "embedding", needs: [{ region: "eu" }] }] }), providers)).toMatchObject({ error: "no-provider", capability: 1 });
  });

  it("honours preferredProvider and preferredModel where they name an embedding provider or model, and ignores them silently otherwise", () => {
    const providers = [embedder("a", ["a-small"]), embedder("b", ["b-large", "b-small"]), ...listProviders(withKeys)];
    const byProvider = routeEmbedding(agent({ preferredProvider: "b" }), providers);
    expect(byProvider).toMatchObject({ providerId: "b", model: "b-large" });
    expect((byProvider as { reason: string }).reason).toContain('preferred provider "b"');
    expect(routeEmbedding(agent({ preferredProvider: "b", preferredModel: "b-small" }), providers)).toMatchObject({ providerId: "b", model: "b-small" });
    expect(routeEmbedding(agent({ preferredModel: "b-small" }), providers)).toMatchObject({ providerId: "b", model: "b-small" });
    expect(routeEmbedding(agent({ preferredProvider: "dev-embed" }), providers)).toMatchObject({ providerId: "dev-embed" });
    // The usual case: the preferences name the turn's model, which the embedding route does not mention.
    const llm = routeEmbedding(agent({ preferredProvider: "anthropic", preferredModel: "claude-sonnet-4-5" }), providers);
    expect(llm).toMatchObject({ providerId: "a", model: "a-small" });
    expect((llm as { reason: string }).reason).toBe('"a" is the first provider that satisfies the capability');
    // And the turn's route is not sent to an embedding provider by them.
    expect(routeCapability(agent({ preferredProvider: "b" }), providers)).toMatchObject({ providerId: "openai" });
  });

  it("reports a missing embedding provider without failing the turn", () => {
    const noEmbedding = listProviders({}).filter((provider) => provider.capabilityKind !== "embedding");
    const definition = agent({ capabilities: [{}, { kind: "embedding" }] });
    expect(routeCapability(definition, noEmbedding)).toMatchObject({ providerId: "dev-echo" });
    expect(capabilityWarnings(definition, noEmbedding)).toEqual([{ path: "/capabilities/1", message: expect.stringContaining('no provider serves capability kind "embedding"') }]);
    expect(routeEmbedding(definition, noEmbedding)).toMatchObject({ error: "no-provider", capability: 1 });
    expect(defaultEmbeddingRoute(noEmbedding)).toMatchObject({ error: "no-provider", capability: null });
    expect(capabilityWarnings(definition, listProviders({}))).toEqual([]);
  });
});
