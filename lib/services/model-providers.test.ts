import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelProviderError, type ModelRequest } from "@/lib/models/provider";
import { startEmbeddingsServer, wireEmbedding } from "@/lib/models/providers/testing/embeddings-wire-server";
import { startWireServer, type WireServer } from "@/lib/models/providers/testing/wire-server";
import { EMBEDDING, DEV_EMBED_DIMENSIONS } from "@/lib/models/embedding";
import { LLM_INFERENCE, listProviders, type ProviderDescriptor } from "@/lib/models/registry";
import { instantiateEmbeddingProvider, instantiateProvider } from "@/lib/services/model-providers";

// A tenant provider's secret is resolved from the database after its destination check; tests/providers.integration.test.ts
// covers that path with a real secret. Here: the dev kinds, environment keys, and refusals that happen before any database access.

const TENANT = "00000000-0000-4000-8000-000000000001";
const ask = (model: string): ModelRequest => ({ model, messages: [{ role: "user", content: "hello" }], tools: [], callIndex: 0 });

const openaiCompletion = { json: { id: "c1", object: "chat.completion", model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hi from openai" }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } } };
const anthropicMessage = { json: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "hi from anthropic" }], stop_reason: "end_turn", usage: { input_tokens: 10, output_tokens: 5 } } };

async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ModelProviderError);
  return error as ModelProviderError;
}

let server: WireServer;
const savedEnv = { ...process.env };
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(async () => {
  await server.close();
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "KINDGI_ALLOW_PRIVATE_PROVIDER_URLS"]) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

describe("instantiateProvider: built-in and environment providers", () => {
  it("builds the dev kinds without a key", async () => {
    const [scripted, , devEcho] = listProviders({ KINDGI_DEV_PROVIDERS: "1" });
    const echo = await instantiateProvider(TENANT, devEcho);
    expect(echo).toMatchObject({ id: "dev-echo", kind: "dev-echo" });
    const answer = await echo.complete(ask("dev-echo"));
    expect(answer.text).toContain("hello");
    expect(await instantiateProvider(TENANT, scripted)).toMatchObject({ id: "scripted", kind: "scripted" });
  });

  it("sends an OpenAI-compatible environment provider's key from its variable, read from process.env", async () => {
    const key = "sk-env-openai-KEY-1234567890";
    process.env.OPENAI_API_KEY = key;
    const [openai] = listProviders({ OPENAI_API_KEY: key, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_MODELS: "gpt-4o-mini" });
    server.enqueue(openaiCompletion);
    const provider = await instantiateProvider(TENANT, openai);
    expect(provider).toMatchObject({ id: "openai", kind: "openai-compatible" });
    const answer = await provider.complete(ask("gpt-4o-mini"));
    expect(answer).toMatchObject({ text: "hi from openai", usage: { inputTokens: 10, outputTokens: 5 }, costUsd: (10 * 0.15 + 5 * 0.6) / 1_000_000 });
    expect(server.requests[0]).toMatchObject({ path: "/v1/chat/completions", headers: { authorization: `Bearer ${key}` } });
  });

  it("sends an Anthropic environment provider's key as x-api-key", async () => {
    const key = "sk-ant-env-KEY-0987654321";
    process.env.ANTHROPIC_API_KEY = key;
    const [anthropic] = listProviders({ ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.url });
    server.enqueue(anthropicMessage);
    const answer = await (await instantiateProvider(TENANT, anthropic)).complete(ask("claude-sonnet-4-5"));
    expect(answer.text).toBe("hi from anthropic");
    expect(server.requests[0]).toMatchObject({ path: "/v1/messages", headers: { "x-api-key": key } });
  });

  it("rejects an environment provider whose variable is not set in this process", async () => {
    delete process.env.OPENAI_API_KEY;
    const [openai] = listProviders({ OPENAI_API_KEY: "only-in-the-listing-env", OPENAI_BASE_URL: `${server.url}/v1` });
    const error = await failure(instantiateProvider(TENANT, openai));
    expect(error).toMatchObject({ code: "provider-auth-failed", attempts: 0, message: "openai: OPENAI_API_KEY is not set" });
    expect(server.requests).toHaveLength(0);
  });
});

const tenantDescriptor = (baseUrl: string): ProviderDescriptor => ({
  id: "acme-llm",
  kind: "openai-compatible",
  capabilityKind: LLM_INFERENCE,
  models: [{ name: "acme-large", features: ["tool-use"] }],
  source: "tenant",
  dev: false,
  routing: "normal",
  baseUrl,
  apiKeySecret: "acme.key",
});

describe("instantiateProvider: a tenant provider's destination is checked on every call, before its key is read", () => {
  it("refuses a loopback URL while KINDGI_ALLOW_PRIVATE_PROVIDER_URLS is off", async () => {
    delete process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS;
    const provider = await instantiateProvider(TENANT, tenantDescriptor(`${server.url}/v1`));
    expect(provider).toMatchObject({ id: "acme-llm", kind: "openai-compatible" });
    const error = await failure(provider.complete(ask("acme-large")));
    expect(error).toMatchObject({ code: "provider-request-failed", attempts: 0 });
    expect(error.message).toContain("127.0.0.1 is a loopback address, allowed only when the server runs with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1");
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a host name that resolves to a private address, asking the given resolver", async () => {
    delete process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS;
    const asked: string[] = [];
    const lookup = async (hostname: string) => {
      asked.push(hostname);
      return [{ address: "192.168.7.7", family: 4 as const }];
    };
    const provider = await instantiateProvider(TENANT, tenantDescriptor("https://llm.acme.test/v1"), { lookup });
    const error = await failure(provider.complete(ask("acme-large")));
    expect(error.message).toContain("192.168.7.7 (an address of llm.acme.test) is a private address");
    expect(asked).toEqual(["llm.acme.test"]);
  });

  it("refuses a metadata address even when private URLs are allowed", async () => {
    process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS = "1";
    const lookup = async () => [{ address: "169.254.169.254", family: 4 as const }];
    const provider = await instantiateProvider(TENANT, tenantDescriptor("https://llm.acme.test/v1"), { lookup });
    expect((await failure(provider.complete(ask("acme-large")))).message).toContain("169.254.169.254 (an address of llm.acme.test) is a cloud metadata address, which a provider URL may never use");
  });
});

describe("instantiateEmbeddingProvider", () => {
  it("builds dev-embed without a key", async () => {
    const devEmbed = listProviders({}).find((provider) => provider.id === "dev-embed")!;
    const provider = await instantiateEmbeddingProvider(TENANT, devEmbed);
    expect(provider).toMatchObject({ id: "dev-embed", kind: "dev-embed" });
    expect(await provider.embed({ model: "dev-embed", inputs: ["hello"] })).toMatchObject({ dimensions: DEV_EMBED_DIMENSIONS, attempts: 0, costUsd: 0 });
  });

  it("sends the environment's OpenAI key to its embeddings endpoint, priced per model", async () => {
    const key = "sk-env-openai-EMBED-1234567890";
    process.env.OPENAI_API_KEY = key;
    const embeddings = await startEmbeddingsServer({ apiKey: key, dimensions: 1536 });
    try {
      const descriptor = listProviders({ OPENAI_API_KEY: key, OPENAI_BASE_URL: embeddings.baseUrl }).find((provider) => provider.id === "openai-embeddings")!;
      const provider = await instantiateEmbeddingProvider(TENANT, descriptor);
      expect(provider).toMatchObject({ id: "openai-embeddings", kind: "openai-compatible-embeddings" });
      const answer = await provider.embed({ model: "text-embedding-3-small", inputs: ["abcdefgh"] });
      expect(answer).toMatchObject({ dimensions: 1536, usage: { inputTokens: 2 }, costUsd: (2 * 0.02) / 1_000_000, attempts: 1, warnings: [] });
      expect(answer.vectors[0]).toEqual(wireEmbedding("abcdefgh", 1536));
      expect(embeddings.requests[0].body).toEqual({ model: "text-embedding-3-small", input: ["abcdefgh"], encoding_format: "float", dimensions: 1536 });
      delete process.env.OPENAI_API_KEY;
      expect(await failure(instantiateEmbeddingProvider(TENANT, descriptor))).toMatchObject({ code: "provider-auth-failed", attempts: 0, message: "openai-embeddings: OPENAI_API_KEY is not set" });
    } finally {
      await embeddings.close();
    }
  });

  it("checks a tenant embedding provider's destination on every call, before its key is read", async () => {
    delete process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS;
    const descriptor: ProviderDescriptor = { ...tenantDescriptor(`${server.url}/v1`), id: "acme-embed", kind: "openai-compatible-embeddings", capabilityKind: EMBEDDING, models: [{ name: "nomic-embed-text", features: [], dimensions: 768 }] };
    const provider = await instantiateEmbeddingProvider(TENANT, descriptor);
    expect(provider).toMatchObject({ id: "acme-embed", kind: "openai-compatible-embeddings" });
    const error = await failure(provider.embed({ model: "nomic-embed-text", inputs: ["a"] }));
    expect(error).toMatchObject({ code: "provider-request-failed", attempts: 0 });
    expect(error.message).toContain("127.0.0.1 is a loopback address");
    process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS = "1";
    const lookup = async () => [{ address: "169.254.169.254", family: 4 as const }];
    const metadata = await instantiateEmbeddingProvider(TENANT, { ...descriptor, baseUrl: "https://embed.acme.test/v1" }, { lookup });
    expect((await failure(metadata.embed({ model: "nomic-embed-text", inputs: ["a"] }))).message).toContain("is a cloud metadata address");
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a model provider's descriptor, and instantiateProvider an embedding provider's", async () => {
    const [devEmbed, devEcho] = listProviders({});
    expect(await failure(instantiateEmbeddingProvider(TENANT, devEcho))).toMatchObject({ code: "provider-request-failed", message: 'dev-echo (kind dev-echo) serves capability kind "llm-inference"; it is not an embedding provider' });
    expect(await failure(instantiateProvider(TENANT, devEmbed))).toMatchObject({ code: "provider-request-failed", message: 'dev-embed (kind dev-embed) serves capability kind "embedding"; it is not a model provider' });
  });
});
