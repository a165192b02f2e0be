import { describe, expect, it } from "vitest";
import { DEV_EMBED_DIMENSIONS } from "./embedding";
import { describeProvider, listProviders, LLM_INFERENCE, PROVIDER_ID_PATTERN, PROVIDER_VARIABLES, RESERVED_PROVIDER_IDS, type ProviderDescriptor } from "./registry";

describe("listProviders", () => {
  it("always has dev-embed and dev-echo, last", () => {
    const providers = listProviders({});
    expect(providers.map((p) => p.id)).toEqual(["dev-embed", "dev-echo"]);
    expect(describeProvider(providers[1])).toEqual({ id: "dev-echo", kind: "dev-echo", capabilityKind: "llm-inference", source: "built-in", models: [{ name: "dev-echo", features: ["tool-use"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 }] });
    expect(describeProvider(providers[0])).toEqual({ id: "dev-embed", kind: "dev-embed", capabilityKind: "embedding", source: "built-in", models: [{ name: "dev-embed", features: [], dimensions: DEV_EMBED_DIMENSIONS, inputUsdPerMTok: 0, outputUsdPerMTok: 0 }] });
    expect(providers[0]).toMatchObject({ dev: true, routing: "fallback" });
  });

  it("offers OpenAI embeddings beside openai, with its key and base URL, unless OPENAI_EMBEDDING_MODELS is none", () => {
    const providers = listProviders({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    expect(providers.map((p) => [p.id, p.kind, p.capabilityKind])).toEqual([
      ["openai", "openai-compatible", "llm-inference"],
      ["openai-embeddings", "openai-compatible-embeddings", "embedding"],
      ["dev-embed", "dev-embed", "embedding"],
      ["dev-echo", "dev-echo", "llm-inference"],
    ]);
    expect(providers[1]).toMatchObject({ source: "environment", dev: false, routing: "normal", apiKeyEnv: "OPENAI_API_KEY", baseUrl: "http://127.0.0.1:9/v1" });
    expect(providers[1].models).toEqual([{ name: "text-embedding-3-small", contextTokens: 8191, dimensions: 1536, inputUsdPerMTok: 0.02, outputUsdPerMTok: 0, features: [] }]);
    const chosen = listProviders({ OPENAI_API_KEY: "k", OPENAI_EMBEDDING_MODELS: "text-embedding-3-large, nomic-embed-text" })[1];
    expect(chosen.models.map((m) => [m.name, m.dimensions, m.inputUsdPerMTok])).toEqual([["text-embedding-3-large", 3072, 0.13], ["nomic-embed-text", undefined, undefined]]);
    expect(listProviders({ OPENAI_API_KEY: "k", OPENAI_EMBEDDING_MODELS: " None " }).map((p) => p.id)).toEqual(["openai", "dev-embed", "dev-echo"]);
  });

  it("answers the same frozen list while the variables it reads stay the same, and a new one when one changes", () => {
    const env: Record<string, string | undefined> = { OPENAI_API_KEY: "k", OPENAI_MODELS: "gpt-4o", UNRELATED: "1" };
    const first = listProviders(env);
    expect(listProviders({ ...env, UNRELATED: "2" })).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0]) && Object.isFrozen(first[0].models[0].features)).toBe(true);
    env.OPENAI_MODELS = "gpt-4o,o3";
    const changed = listProviders(env);
    expect(changed).not.toBe(first);
    expect(changed[0].models.map((m) => m.name)).toEqual(["gpt-4o", "o3"]);
    env.OPENAI_BASE_URL = "";
    expect(listProviders(env)).not.toBe(changed);
    env.OPENAI_EMBEDDING_MODELS = "none";
    expect(listProviders(env)).not.toBe(changed);
    delete env.OPENAI_API_KEY;
    expect(listProviders(env).map((p) => p.id)).toEqual(["dev-embed", "dev-echo"]);
  });

  it("reads no variable outside PROVIDER_VARIABLES, the key its kept answer is checked against", () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get(_target, name) {
        if (typeof name === "string") read.add(name);
        return name === "KINDGI_DEV_PROVIDERS" ? "1" : `value-${read.size}-${Date.now()}`;
      },
    });
    expect(listProviders(env).map((p) => p.id)).toEqual(["openai", "openai-embeddings", "anthropic", "scripted", "dev-embed", "dev-echo"]);
    expect([...read].filter((name) => !(PROVIDER_VARIABLES as readonly string[]).includes(name))).toEqual([]);
  });

  it("lists scripted with KINDGI_DEV_PROVIDERS=1 only", () => {
    expect(listProviders({ KINDGI_DEV_PROVIDERS: "1" }).map((p) => p.id)).toEqual(["scripted", "dev-embed", "dev-echo"]);
    expect(listProviders({ KINDGI_DEV_PROVIDERS: "0" }).map((p) => p.id)).toEqual(["dev-embed", "dev-echo"]);
  });

  it("adds environment providers when their key is set, with their model lists and never a key", () => {
    const env = { OPENAI_API_KEY: "sk-secret-1", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_MODELS: " gpt-4o , my-local-model,,gpt-4o", ANTHROPIC_API_KEY: "sk-ant-secret-2" };
    const providers = listProviders(env);
    expect(providers.map((p) => [p.id, p.kind, p.source])).toEqual([
      ["openai", "openai-compatible", "environment"],
      ["openai-embeddings", "openai-compatible-embeddings", "environment"],
      ["anthropic", "anthropic", "environment"],
      ["dev-embed", "dev-embed", "built-in"],
      ["dev-echo", "dev-echo", "built-in"],
    ]);
    expect(providers[0].models.map((m) => m.name)).toEqual(["gpt-4o", "my-local-model"]);
    expect(providers[0].models[0]).toMatchObject({ contextTokens: 128000, features: ["tool-use", "json-output"] });
    expect(providers[0].models[1]).toEqual({ name: "my-local-model", features: ["tool-use", "json-output"] });
    expect(providers[0]).toMatchObject({ baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "OPENAI_API_KEY" });
    expect(providers[2]).toMatchObject({ apiKeyEnv: "ANTHROPIC_API_KEY" });
    expect(providers[2].baseUrl).toBeUndefined();
    expect(providers[2].models.map((m) => m.name)).toEqual(["claude-sonnet-4-5"]);
    const shown = JSON.stringify(providers.map(describeProvider));
    expect(shown).not.toContain("secret");
    expect(shown).not.toContain("127.0.0.1");
    expect(JSON.stringify(providers)).not.toContain("secret");
  });

  it("ignores blank keys and defaults the OpenAI model", () => {
    expect(listProviders({ OPENAI_API_KEY: "  ", ANTHROPIC_API_KEY: "" }).map((p) => p.id)).toEqual(["dev-embed", "dev-echo"]);
    expect(listProviders({ OPENAI_API_KEY: "k", OPENAI_MODELS: " , " })[0].models.map((m) => m.name)).toEqual(["gpt-4o-mini"]);
  });
});

describe("describeProvider", () => {
  it("shows a tenant's own provider with its URL and secret name, never a key", () => {
    const tenant: ProviderDescriptor = {
      id: "acme-llm",
      kind: "anthropic",
      capabilityKind: LLM_INFERENCE,
      models: [{ name: "claude-haiku-4-5", features: ["tool-use"] }],
      source: "tenant",
      dev: false,
      routing: "normal",
      baseUrl: "https://llm.acme.test/",
      apiKeySecret: "acme.key",
    };
    expect(describeProvider(tenant)).toEqual({ id: "acme-llm", kind: "anthropic", capabilityKind: "llm-inference", source: "tenant", baseUrl: "https://llm.acme.test/", apiKeySecret: "acme.key", projectIds: null, models: [{ name: "claude-haiku-4-5", features: ["tool-use"] }] });
    const [openai] = listProviders({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://10.0.0.1/v1" });
    expect(Object.keys(describeProvider(openai)).sort()).toEqual(["capabilityKind", "id", "kind", "models", "source"]);
  });

  it("reserves the built-in and environment ids, which follow the id pattern", () => {
    const ids = listProviders({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", KINDGI_DEV_PROVIDERS: "1" }).map((p) => p.id);
    expect([...RESERVED_PROVIDER_IDS].sort()).toEqual([...ids].sort());
    for (const id of ids) expect(id).toMatch(new RegExp(PROVIDER_ID_PATTERN));
  });
});
