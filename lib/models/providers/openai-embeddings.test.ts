import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelProviderError } from "@/lib/models/provider";
import type { RetryInfo } from "@/lib/models/providers/http";
import { batches, createOpenAIEmbeddingProvider, type EmbeddingProviderConfig } from "@/lib/models/providers/openai-embeddings";
import { startEmbeddingsServer, wireEmbedding, wireTokens, type EmbeddingsServer } from "@/lib/models/providers/testing/embeddings-wire-server";
import { startWireServer } from "@/lib/models/providers/testing/wire-server";

const API_KEY = "sk-test-EMBED-0123456789abcdef";
const FAST = { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 50, timeoutMs: 2_000 };

let server: EmbeddingsServer;
let retries: RetryInfo[];
beforeEach(async () => {
  server = await startEmbeddingsServer({ apiKey: API_KEY, dimensions: 8 });
  retries = [];
});
afterEach(() => server.close());

const provider = (overrides: Partial<EmbeddingProviderConfig> = {}) =>
  createOpenAIEmbeddingProvider({
    id: "openai-embeddings",
    baseUrl: `${server.baseUrl}/`,
    apiKey: API_KEY,
    models: [{ name: "text-embedding-3-small", inputUsdPerMTok: 0.02 }, { name: "nomic-embed-text", dimensions: 8 }],
    http: { policy: FAST, onRetry: (info) => retries.push(info) },
    ...overrides,
  });

async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ModelProviderError);
  return error as ModelProviderError;
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `fact number ${i}: the customer prefers ${i % 2 ? "email" : "phone"}`);

describe("openai-compatible embeddings: the wire", () => {
  it("POSTs {model, input[], encoding_format: float} with bearer auth and answers one vector per input, with usage and cost", async () => {
    const inputs = ["the invoice is overdue", "billing address changed"];
    const answer = await provider().embed({ model: "text-embedding-3-small", inputs });
    const [request] = server.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/embeddings", status: 200 });
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.body).toEqual({ model: "text-embedding-3-small", input: inputs, encoding_format: "float" });
    expect(answer.vectors).toEqual(inputs.map((text) => wireEmbedding(text, 8)));
    expect(answer).toMatchObject({ model: "text-embedding-3-small", dimensions: 8, usage: { inputTokens: wireTokens(inputs) }, attempts: 1, warnings: [] });
    expect(answer.costUsd).toBeCloseTo((wireTokens(inputs) * 0.02) / 1_000_000, 15);
  });

  it("sends a model's declared dimensions and checks the answer against them", async () => {
    server.update({ dimensions: 3 });
    const answer = await provider().embed({ model: "nomic-embed-text", inputs: ["hello"] });
    expect(server.requests[0].body).toMatchObject({ dimensions: 8 });
    expect(answer.dimensions).toBe(8);
    // No price configured: a warning, cost 0.
    expect(answer.costUsd).toBe(0);
    expect(answer.warnings).toEqual(['openai-embeddings: no price is configured for model "nomic-embed-text"; a missing price counts as 0 USD']);
  });

  it("batches by count and by characters, in order, and reorders each answer by index", async () => {
    server.update({ maxBatch: 4, reversed: true });
    const inputs = texts(10);
    const answer = await provider({ maxBatchInputs: 4 }).embed({ model: "text-embedding-3-small", inputs });
    expect(server.requests.map((request) => request.inputs?.length)).toEqual([4, 4, 2]);
    expect(server.requests.flatMap((request) => request.inputs)).toEqual(inputs);
    expect(answer.vectors).toEqual(inputs.map((text) => wireEmbedding(text, 8)));
    expect(answer).toMatchObject({ attempts: 3, usage: { inputTokens: wireTokens(inputs) } });

    // The server refuses a batch larger than it takes: the provider's default is what it is configured with.
    server.update({ maxBatch: 2 });
    const refused = await failure(provider({ maxBatchInputs: 3 }).embed({ model: "text-embedding-3-small", inputs: texts(3) }));
    expect(refused).toMatchObject({ code: "provider-request-failed", status: 400, attempts: 1 });
    expect(refused.message).toContain("at most 2 per request");

    expect(batches(["aaaa", "bbbb", "cc", "dddddddddd", "e"], 10, 9)).toEqual([["aaaa", "bbbb"], ["cc"], ["dddddddddd"], ["e"]]);
    expect(batches([], 10, 10)).toEqual([]);
  });

  it("answers a 429 with Retry-After by waiting and trying again (attempts 2)", async () => {
    server.update({ faults: { 1: { status: 429, headers: { "retry-after": "0.03" } } } });
    const started = Date.now();
    const answer = await provider().embed({ model: "text-embedding-3-small", inputs: ["hi"] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(answer.attempts).toBe(2);
    expect(answer.vectors).toEqual([wireEmbedding("hi", 8)]);
    expect(retries).toEqual([{ attempt: 1, delayMs: 30, status: 429, code: "provider-rate-limited" }]);
    expect(server.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it("retries a 5xx; gives up with provider-rate-limited after the retries; counts the attempts of earlier batches", async () => {
    server.update({ faults: { 1: { status: 500 } } });
    expect((await provider().embed({ model: "text-embedding-3-small", inputs: ["hi"] })).attempts).toBe(2);
    const limited = { status: 429, headers: { "retry-after": "0" } };
    server.update({ faults: { 4: limited, 5: limited, 6: limited, 7: limited } });
    // Request 3 is the first batch (ok), 4–7 the second (429 four times).
    const error = await failure(provider({ maxBatchInputs: 1 }).embed({ model: "text-embedding-3-small", inputs: ["a", "b"] }));
    expect(error).toMatchObject({ code: "provider-rate-limited", status: 429, attempts: 5 });
    expect(error.message).toMatch(/^openai-embeddings: HTTP 429: requests: rate_limit_exceeded: Rate limit reached/);
  });

  it("fails with provider-bad-response on a dimension mismatch, naming both lengths, and does not retry it", async () => {
    server.update({ faults: { 1: { dimensions: 5 } } });
    const error = await failure(provider().embed({ model: "nomic-embed-text", inputs: ["hi", "there"] }));
    expect(error).toMatchObject({ code: "provider-bad-response", status: 200, attempts: 1 });
    expect(error.message).toBe('openai-embeddings: dimension mismatch: model "nomic-embed-text" answered vectors of 5 numbers; it is configured with 8 dimensions');
    expect(server.requests).toHaveLength(1);
  });

  it("fails when batches answer different lengths, or an answer lacks an embedding", async () => {
    server.update({ faults: { 2: { dimensions: 16 } } });
    const mixed = await failure(provider({ maxBatchInputs: 1 }).embed({ model: "text-embedding-3-small", inputs: ["a", "b"] }));
    expect(mixed).toMatchObject({ code: "provider-bad-response", attempts: 2 });
    expect(mixed.message).toContain("answered vectors of 16 numbers for inputs 1–1, after 8");
    server.update({ faults: { 3: { dropOne: true } } });
    const short = await failure(provider().embed({ model: "text-embedding-3-small", inputs: ["a", "b"] }));
    expect(short).toMatchObject({ code: "provider-bad-response", attempts: 1 });
    expect(short.message).toContain("1 embeddings for 2 inputs");
  });

  it("refuses an empty text before any request; no inputs make no request", async () => {
    const error = await failure(provider().embed({ model: "text-embedding-3-small", inputs: ["a", ""] }));
    expect(error).toMatchObject({ code: "provider-request-failed", attempts: 0 });
    expect(await provider().embed({ model: "nomic-embed-text", inputs: [] })).toMatchObject({ vectors: [], dimensions: 8, attempts: 0 });
    expect(server.requests).toHaveLength(0);
  });

  it("maps a refused key to provider-auth-failed without the key in the message; an answer without usage warns", async () => {
    const error = await failure(provider({ apiKey: "sk-wrong-key-000000" }).embed({ model: "text-embedding-3-small", inputs: ["a"] }));
    expect(error).toMatchObject({ code: "provider-auth-failed", status: 401, attempts: 1 });
    expect(error.message).not.toContain("sk-wrong-key");

    const local = await startEmbeddingsServer();
    try {
      const bare = createOpenAIEmbeddingProvider({ id: "ollama", baseUrl: local.baseUrl, apiKey: "" });
      const answer = await bare.embed({ model: "nomic-embed-text", inputs: ["x"] });
      expect(local.requests[0].headers.authorization).toBeUndefined();
      expect(answer.model).toBe("nomic-embed-text");
    } finally {
      await local.close();
    }
  });

  it("through the shared transport: a body that is not JSON fails at once; a silent server times out and is retried", async () => {
    const loose = await startWireServer({ status: 200, body: '{"data": [' }, { delayMs: 300, json: {} }, { json: { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.5, 0.5] }], model: "m" } });
    try {
      const embedder = createOpenAIEmbeddingProvider({ id: "loose", baseUrl: `${loose.url}/v1`, apiKey: "", http: { policy: { ...FAST, timeoutMs: 100 }, onRetry: (info) => retries.push(info) } });
      const malformed = await failure(embedder.embed({ model: "m", inputs: ["a"] }));
      expect(malformed).toMatchObject({ code: "provider-bad-response", status: 200, attempts: 1 });
      expect(malformed.message).toContain("loose: HTTP 200 with a body that is not JSON");
      const answer = await embedder.embed({ model: "m", inputs: ["a"] });
      expect(answer).toMatchObject({ vectors: [[0.5, 0.5]], dimensions: 2, attempts: 2, usage: { inputTokens: 0 } });
      expect(retries.map((retry) => retry.code)).toEqual(["provider-unavailable"]);
      expect(answer.warnings).toContain("loose: the answer reported no usage; counted as 0 tokens");
    } finally {
      await loose.close();
    }
  });

  it("aborts with the signal's reason", async () => {
    server.update({ faults: { 1: { status: 429, headers: { "retry-after": "5" } } } });
    const controller = new AbortController();
    const call = provider({ http: { policy: { ...FAST, maxRetryAfterMs: 5_000 } } }).embed({ model: "text-embedding-3-small", inputs: ["a"], signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 30);
    await expect(call).rejects.toThrow("stop");
  });
});

describe("the embeddings wire server", () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/embeddings`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}`, ...headers }, body: JSON.stringify(body) });

  it("refuses what OpenAI refuses, in OpenAI's error shape", async () => {
    const cases: [unknown, number, string][] = [
      [{ input: "a" }, 400, "model"],
      [{ model: "m", input: [] }, 400, "input"],
      [{ model: "m", input: ["a", ""] }, 400, "input[1]"],
      [{ model: "m", input: [1, 2] }, 400, "input[0]"],
      [{ model: "m", input: "a", encoding_format: "base64" }, 400, "float"],
      [{ model: "m", input: "a", dimensions: 0 }, 400, "dimensions"],
      [{ model: "m", input: "a", stream: true }, 400, "Unrecognized request argument supplied: stream"],
    ];
    for (const [body, status, message] of cases) {
      const response = await post(body);
      expect(response.status).toBe(status);
      const json = (await response.json()) as { error: { message: string; type: string } };
      expect(json.error.type).toBe("invalid_request_error");
      expect(json.error.message).toContain(message);
    }
    expect((await post({ model: "m", input: "a" }, { authorization: "Bearer nope" })).status).toBe(401);
    expect((await fetch(`${server.url}/v1/embedding`, { method: "POST" })).status).toBe(404);
  });

  it("accepts a single string input and answers the real shape", async () => {
    const json = await (await post({ model: "m", input: "hello", encoding_format: "float", dimensions: 4 })).json();
    expect(json).toEqual({ object: "list", data: [{ object: "embedding", index: 0, embedding: wireEmbedding("hello", 4) }], model: "m", usage: { prompt_tokens: 2, total_tokens: 2 } });
  });
});
