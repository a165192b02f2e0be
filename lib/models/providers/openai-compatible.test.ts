import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelProviderError, type ModelRequest, type ToolSpec } from "@/lib/models/provider";
import type { RetryInfo } from "@/lib/models/providers/http";
import { createOpenAICompatibleProvider } from "@/lib/models/providers/openai-compatible";
import { startWireServer, wireErrors, type WireReply, type WireServer } from "@/lib/models/providers/testing/wire-server";

const API_KEY = "sk-test-OPENAI-0123456789abcdef";
const FAST = { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 20, timeoutMs: 2_000 };
const search: ToolSpec = { name: "acme.search", description: "Search the web", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } };

let server: WireServer;
let retries: RetryInfo[];
beforeEach(async () => {
  server = await startWireServer();
  retries = [];
});
afterEach(() => server.close());

const provider = (apiKey = API_KEY) =>
  createOpenAICompatibleProvider({
    id: "openai",
    baseUrl: `${server.url}/v1/`,
    apiKey,
    models: [{ name: "gpt-4o", inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 }],
    http: { policy: FAST, onRetry: (info) => retries.push(info) },
  });

const ask = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0, ...overrides });

const completion = (message: Record<string, unknown>, finish = "stop", usage: unknown = { prompt_tokens: 1_000, completion_tokens: 500, total_tokens: 1_500 }): WireReply => ({
  json: { id: "chatcmpl-1", object: "chat.completion", model: "gpt-4o", choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }], usage },
});

async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ModelProviderError);
  return error as ModelProviderError;
}

describe("openai-compatible: request", () => {
  it("POSTs a streamed Chat Completions request with bearer auth, mapped messages, tools and the JSON schema format", async () => {
    server.enqueue(completion({ content: "ok" }));
    await provider().complete(
      ask({
        messages: [
          { role: "system", content: "You are helpful." },
          { role: "user", content: "find kindgi" },
          { role: "assistant", content: null, toolCalls: [{ id: "call_a", name: "acme.search", arguments: { q: "kindgi" } }] },
          { role: "tool", toolCallId: "call_a", toolName: "acme.search", content: '{"hits":1}' },
        ],
        tools: [search],
        responseFormat: { type: "json", name: "answer.v1", schema: { type: "object" } },
      }),
    );
    const [request] = server.requests;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.accept).toBe("text/event-stream");
    expect(request.body).toEqual({
      model: "gpt-4o",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are helpful." },
        { role: "user", content: "find kindgi" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: "acme_search", arguments: '{"q":"kindgi"}' } }] },
        { role: "tool", tool_call_id: "call_a", content: '{"hits":1}' },
      ],
      tools: [{ type: "function", function: { name: "acme_search", description: "Search the web", parameters: search.inputSchema } }],
      response_format: { type: "json_schema", json_schema: { name: "answer_v1", schema: { type: "object" } } },
    });
  });

  it("omits tools when none are offered, asks json_object without a schema, and sends no Authorization without a key", async () => {
    server.enqueue(completion({ content: "{}" }));
    await provider("").complete(ask({ responseFormat: { type: "json" } }));
    const [request] = server.requests;
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toEqual({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true }, response_format: { type: "json_object" } });
  });

  it("sends raw (non-JSON) arguments from an earlier step back as they were, and empty content for an empty assistant message", async () => {
    server.enqueue(completion({ content: "ok" }));
    await provider().complete(
      ask({
        messages: [
          { role: "assistant", content: "", toolCalls: [{ id: "c", name: "acme.search", arguments: "{bad" }] },
          { role: "assistant", content: null },
        ],
      }),
    );
    const { messages } = server.requests[0].body as { messages: Record<string, unknown>[] };
    expect(messages[0].tool_calls).toEqual([{ id: "c", type: "function", function: { name: "acme_search", arguments: "{bad" } }]);
    expect(messages[1]).toEqual({ role: "assistant", content: "" });
  });
});

describe("openai-compatible: answers", () => {
  it("reads a text answer, its usage and its cost in USD", async () => {
    server.enqueue(completion({ content: "Hello!" }));
    expect(await provider().complete(ask())).toEqual({
      text: "Hello!",
      toolCalls: [],
      usage: { inputTokens: 1_000, outputTokens: 500 },
      costUsd: 0.0075,
      warnings: [],
      attempts: 1,
      finishReason: "stop",
    });
  });

  it("reads tool calls, mapping API names back to tool ids and parsing JSON arguments", async () => {
    server.enqueue(
      completion(
        {
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "acme_search", arguments: '{"q":"kindgi"}' } },
            { id: "call_2", type: "function", function: { name: "acme_search", arguments: "{not json" } },
            { id: "call_3", type: "function", function: { name: "invented_tool", arguments: "" } },
            { type: "function", function: { name: "acme_search", arguments: { q: "object already" } } },
          ],
        },
        "tool_calls",
      ),
    );
    const answer = await provider().complete(ask({ tools: [search], callIndex: 3 }));
    expect(answer.text).toBeNull();
    expect(answer.finishReason).toBe("tool-calls");
    expect(answer.toolCalls).toEqual([
      { id: "call_1", name: "acme.search", arguments: { q: "kindgi" } },
      { id: "call_2", name: "acme.search", arguments: "{not json" },
      { id: "call_3", name: "invented_tool", arguments: {} },
      { id: "call_3_3", name: "acme.search", arguments: { q: "object already" } },
    ]);
  });

  it("reports tool-calls even when the server says stop (Ollama), and length when cut off", async () => {
    server.enqueue(completion({ content: "", tool_calls: [{ id: "x", function: { name: "acme_search", arguments: "{}" } }] }, "stop"), completion({ content: "trunc" }, "length"));
    expect((await provider().complete(ask({ tools: [search] }))).finishReason).toBe("tool-calls");
    expect((await provider().complete(ask())).finishReason).toBe("length");
  });

  it("warns about a model without a price and an answer without usage", async () => {
    server.enqueue(completion({ content: "hi" }, "stop", null));
    const answer = await provider().complete(ask({ model: "llama3.1" }));
    expect(answer.costUsd).toBe(0);
    expect(answer.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(answer.warnings).toEqual(["openai: the answer reported no usage; counted as 0 tokens", 'openai: no price is configured for model "llama3.1"; a missing price counts as 0 USD']);
  });

  it("fails with provider-bad-response, without retrying, on a JSON body where an event stream was asked for", async () => {
    server.enqueue(wireErrors.malformed(), { json: { object: "list" } });
    const notJson = await failure(provider().complete(ask()));
    expect(notJson).toMatchObject({ code: "provider-bad-response", status: 200, attempts: 1, message: "openai: HTTP 200 with a JSON body instead of an event stream" });
    const notCompletion = await failure(provider().complete(ask()));
    expect(notCompletion).toMatchObject({ code: "provider-bad-response", attempts: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it("fails with provider-bad-response on a chunk that is not JSON and on a tool call without a name, each retried as a new attempt", async () => {
    const stream = (text: string): WireReply => ({ headers: { "content-type": "text/event-stream" }, body: text });
    const once = createOpenAICompatibleProvider({ id: "openai", baseUrl: `${server.url}/v1`, apiKey: API_KEY, http: { policy: { ...FAST, maxRetries: 1 } } });
    server.enqueue(stream('data: {"choices": [\n\n'), stream('data: {"choices": [\n\ndata: [DONE]\n\n'));
    expect(await failure(once.complete(ask()))).toMatchObject({ code: "provider-bad-response", status: 200, attempts: 2, message: 'openai: a stream chunk is not JSON: {"choices": [ (after 2 attempts)' });
    const nameless = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c", function: { arguments: "{}" } }] }, finish_reason: "tool_calls" }] })}\n\ndata: [DONE]\n\n`;
    server.enqueue(stream(nameless), stream(nameless));
    expect(await failure(once.complete(ask()))).toMatchObject({ code: "provider-bad-response", attempts: 2, message: "openai: tool_calls[0] has no function name (after 2 attempts)" });
    expect(server.requests).toHaveLength(4);
  });
});

describe("openai-compatible: errors and retries", () => {
  it("retries a 429 after the Retry-After wait (capped) and counts the attempts", async () => {
    server.enqueue(wireErrors.rateLimited(1), completion({ content: "after the wait" }));
    const answer = await provider().complete(ask());
    expect(answer).toMatchObject({ text: "after the wait", attempts: 2 });
    expect(retries).toEqual([{ attempt: 1, delayMs: 20, status: 429, code: "provider-rate-limited" }]);
    expect(server.requests).toHaveLength(2);
  });

  it("gives up after 4 attempts of 500 with provider-unavailable", async () => {
    server.enqueue(wireErrors.serverError(), wireErrors.serverError(), wireErrors.serverError(), wireErrors.serverError());
    const error = await failure(provider().complete(ask()));
    expect(error).toMatchObject({ code: "provider-unavailable", status: 500, attempts: 4 });
    expect(error.message).toBe("openai: HTTP 500: server_error: The server had an error (after 4 attempts)");
    expect(server.requests).toHaveLength(4);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
  });

  it("gives up on a lasting 429 with provider-rate-limited", async () => {
    server.enqueue(...Array.from({ length: 4 }, () => wireErrors.rateLimited(0)));
    expect(await failure(provider().complete(ask()))).toMatchObject({ code: "provider-rate-limited", status: 429, attempts: 4 });
  });

  it("fails a 401 with provider-auth-failed, no retry, and never shows the key", async () => {
    server.enqueue(wireErrors.unauthorized({ error: { message: `Incorrect API key provided: ${API_KEY}. Also sk-proj-abc***wxyz.`, type: "invalid_request_error", code: "invalid_api_key" } }));
    const error = await failure(provider().complete(ask()));
    expect(error).toMatchObject({ code: "provider-auth-failed", status: 401, attempts: 1 });
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain("invalid_api_key");
    expect(error.message).not.toContain(API_KEY);
    expect(error.message).not.toContain("wxyz");
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(String(error.stack)).not.toContain(API_KEY);
  });

  it("fails a 400 with provider-request-failed and no retry", async () => {
    server.enqueue({ status: 400, json: { error: { message: "model not found", type: "invalid_request_error" } } });
    expect(await failure(provider().complete(ask()))).toMatchObject({ code: "provider-request-failed", status: 400, attempts: 1, message: "openai: HTTP 400: invalid_request_error: model not found" });
  });

  it("does not follow a redirect (the key and the conversation would go to an unchecked destination)", async () => {
    const elsewhere = await startWireServer(completion({ content: "followed" }));
    try {
      for (const status of [301, 307, 308]) {
        server.enqueue({ status, headers: { location: `${elsewhere.url}/v1/chat/completions` }, body: "" });
        expect(await failure(provider().complete(ask()))).toMatchObject({ code: "provider-request-failed", status, attempts: 1, message: `openai: HTTP ${status}, a redirect, which is not followed` });
      }
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("retries a network failure and reports provider-unavailable", async () => {
    await server.close();
    const error = await failure(provider().complete(ask()));
    expect(error).toMatchObject({ code: "provider-unavailable", attempts: 4 });
    expect(error.message).toMatch(/^openai: could not be reached \(ECONNREFUSED\)/);
  });

  it("times an attempt out and retries it", async () => {
    const slow = createOpenAICompatibleProvider({ id: "openai", baseUrl: `${server.url}/v1`, apiKey: API_KEY, http: { policy: { ...FAST, timeoutMs: 50, maxRetries: 1 } } });
    server.enqueue({ ...completion({ content: "late" }), delayMs: 500 }, completion({ content: "in time" }));
    expect(await slow.complete(ask())).toMatchObject({ text: "in time", attempts: 2 });
  });

  it("honours the abort signal during a request and during a backoff wait", async () => {
    server.enqueue({ ...completion({ content: "late" }), delayMs: 5_000 });
    const started = Date.now();
    await expect(provider().complete(ask({ signal: AbortSignal.timeout(50) }))).rejects.toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - started).toBeLessThan(2_000);

    const waiting = createOpenAICompatibleProvider({ id: "openai", baseUrl: server.url, apiKey: API_KEY, http: { policy: { ...FAST, maxRetryAfterMs: 10_000 } } });
    server.enqueue(wireErrors.rateLimited(10));
    const controller = new AbortController();
    const call = waiting.complete(ask({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("makes no request when the signal is already aborted", async () => {
    await expect(provider().complete(ask({ signal: AbortSignal.abort() }))).rejects.toMatchObject({ name: "AbortError" });
    expect(server.requests).toHaveLength(0);
  });
});
