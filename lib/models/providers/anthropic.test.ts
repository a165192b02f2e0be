import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelProviderError, type ModelRequest, type ToolSpec } from "@/lib/models/provider";
import { createAnthropicProvider } from "@/lib/models/providers/anthropic";
import type { RetryInfo } from "@/lib/models/providers/http";
import { startWireServer, wireErrors, type WireReply, type WireServer } from "@/lib/models/providers/testing/wire-server";

const API_KEY = "sk-ant-test-ANTHROPIC-0123456789";
const FAST = { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 20, timeoutMs: 2_000 };
const search: ToolSpec = { name: "acme.search", description: "Search the web", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } };
const fetchPage: ToolSpec = { name: "acme.fetch", description: "Fetch a page", inputSchema: { type: "object", properties: { url: { type: "string" } } } };

let server: WireServer;
let retries: RetryInfo[];
beforeEach(async () => {
  server = await startWireServer();
  retries = [];
});
afterEach(() => server.close());

const provider = (maxTokens?: number) =>
  createAnthropicProvider({
    id: "anthropic",
    baseUrl: server.url,
    apiKey: API_KEY,
    maxTokens,
    models: [{ name: "claude-sonnet-4-5", inputUsdPerMTok: 3, outputUsdPerMTok: 15 }],
    http: { policy: FAST, onRetry: (info) => retries.push(info) },
  });

const ask = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }], tools: [], callIndex: 0, ...overrides });

const message = (content: unknown[], stopReason = "end_turn", usage: unknown = { input_tokens: 2_000, output_tokens: 100 }): WireReply => ({
  json: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content, stop_reason: stopReason, stop_sequence: null, usage },
});

async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ModelProviderError);
  return error as ModelProviderError;
}

describe("anthropic: request", () => {
  it("POSTs a streamed Messages request with x-api-key and version, a top-level system, content blocks and merged tool results", async () => {
    server.enqueue(message([{ type: "text", text: "ok" }]));
    await provider().complete(
      ask({
        messages: [
          { role: "system", content: "You are helpful." },
          { role: "user", content: "find kindgi" },
          {
            role: "assistant",
            content: "Let me look.",
            toolCalls: [
              { id: "toolu_1", name: "acme.search", arguments: { q: "kindgi" } },
              { id: "toolu_2", name: "acme.fetch", arguments: { url: "https://kindgi.dev" } },
            ],
          },
          { role: "tool", toolCallId: "toolu_1", toolName: "acme.search", content: '{"hits":1}' },
          { role: "tool", toolCallId: "toolu_2", toolName: "acme.fetch", content: "<html>" },
          { role: "system", content: "Be brief." },
        ],
        tools: [search, fetchPage],
      }),
    );
    const [request] = server.requests;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe(API_KEY);
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers.accept).toBe("text/event-stream");
    expect(request.body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      stream: true,
      system: "You are helpful.\n\nBe brief.",
      messages: [
        { role: "user", content: [{ type: "text", text: "find kindgi" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Let me look." },
            { type: "tool_use", id: "toolu_1", name: "acme_search", input: { q: "kindgi" } },
            { type: "tool_use", id: "toolu_2", name: "acme_fetch", input: { url: "https://kindgi.dev" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: '{"hits":1}' },
            { type: "tool_result", tool_use_id: "toolu_2", content: "<html>" },
          ],
        },
      ],
      tools: [
        { name: "acme_search", description: "Search the web", input_schema: search.inputSchema },
        { name: "acme_fetch", description: "Fetch a page", input_schema: fetchPage.inputSchema },
      ],
    });
  });

  it("merges a user message that follows tool results, drops empty messages, and honours maxTokens", async () => {
    server.enqueue(message([{ type: "text", text: "ok" }]));
    await provider(256).complete(
      ask({
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: null, toolCalls: [{ id: "t1", name: "acme.search", arguments: "{raw" }] },
          { role: "tool", toolCallId: "t1", toolName: "acme.search", content: "r" },
          { role: "user", content: "Your answer did not match." },
          { role: "assistant", content: null },
          { role: "user", content: "" },
        ],
        tools: [search],
      }),
    );
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body.max_tokens).toBe(256);
    expect(body.system).toBeUndefined();
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "acme_search", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "r" },
          { type: "text", text: "Your answer did not match." },
        ],
      },
    ]);
  });

  it("asks for JSON through the system prompt and omits tools when none are offered", async () => {
    server.enqueue(message([{ type: "text", text: "{}" }]));
    await provider().complete(ask({ responseFormat: { type: "json", schema: { type: "object", required: ["a"] } } }));
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body.system).toBe('Answer with a single JSON value only: no prose, no code fences. It must match this JSON Schema: {"type":"object","required":["a"]}');
    expect(body.tools).toBeUndefined();
  });
});

describe("anthropic: answers", () => {
  it("reads a text answer, its usage and its cost in USD", async () => {
    server.enqueue(message([{ type: "text", text: "Hello" }, { type: "text", text: " there" }]));
    expect(await provider().complete(ask())).toEqual({
      text: "Hello there",
      toolCalls: [],
      usage: { inputTokens: 2_000, outputTokens: 100 },
      costUsd: 0.0075,
      warnings: [],
      attempts: 1,
      finishReason: "stop",
    });
  });

  it("reads tool_use blocks as tool calls, mapping names back to tool ids", async () => {
    server.enqueue(
      message(
        [
          { type: "thinking", thinking: "hmm", signature: "x" },
          { type: "text", text: "Searching." },
          { type: "tool_use", id: "toolu_9", name: "acme_search", input: { q: "kindgi" } },
          { type: "tool_use", id: "toolu_10", name: "invented", input: {} },
        ],
        "tool_use",
      ),
    );
    const answer = await provider().complete(ask({ tools: [search] }));
    expect(answer).toMatchObject({
      text: "Searching.",
      finishReason: "tool-calls",
      toolCalls: [
        { id: "toolu_9", name: "acme.search", arguments: { q: "kindgi" } },
        { id: "toolu_10", name: "invented", arguments: {} },
      ],
    });
  });

  it("maps max_tokens to length, and warns about missing usage and an unpriced model", async () => {
    server.enqueue(message([{ type: "text", text: "cut" }], "max_tokens", null));
    const answer = await provider().complete(ask({ model: "claude-opus-x" }));
    expect(answer).toMatchObject({ finishReason: "length", costUsd: 0, usage: { inputTokens: 0, outputTokens: 0 } });
    expect(answer.warnings).toEqual(["anthropic: the answer reported no usage; counted as 0 tokens", 'anthropic: no price is configured for model "claude-opus-x"; a missing price counts as 0 USD']);
  });

  it("fails with provider-bad-response on a JSON body where an event stream was asked for, without retrying", async () => {
    server.enqueue({ json: { type: "message" } });
    expect(await failure(provider().complete(ask()))).toMatchObject({ code: "provider-bad-response", attempts: 1, message: "anthropic: HTTP 200 with a JSON body instead of an event stream" });
    expect(server.requests).toHaveLength(1);
  });

  it("fails with provider-bad-response on a tool_use block without id, and on event data that is not JSON, after a second attempt", async () => {
    const once = createAnthropicProvider({ id: "anthropic", baseUrl: server.url, apiKey: API_KEY, http: { policy: { ...FAST, maxRetries: 1 } } });
    server.enqueue(message([{ type: "tool_use", name: "acme_search", input: {} }]), message([{ type: "tool_use", name: "acme_search", input: {} }]));
    expect(await failure(once.complete(ask()))).toMatchObject({ code: "provider-bad-response", attempts: 2, message: "anthropic: content[0] is a tool_use block without id or name (after 2 attempts)" });
    const broken: WireReply = { headers: { "content-type": "text/event-stream" }, body: "event: message_start\ndata: {not json\n\n" };
    server.enqueue(broken, broken);
    expect(await failure(once.complete(ask()))).toMatchObject({ code: "provider-bad-response", status: 200, attempts: 2, message: "anthropic: the data of a message_start event is not JSON (after 2 attempts)" });
    expect(server.requests).toHaveLength(4);
  });
});

describe("anthropic: errors and retries", () => {
  const overloaded: WireReply = { status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } };

  it("retries a 429 after the Retry-After wait (capped) and counts the attempts", async () => {
    server.enqueue(wireErrors.rateLimited(3, { type: "error", error: { type: "rate_limit_error", message: "slow down" } }), message([{ type: "text", text: "ok" }]));
    expect(await provider().complete(ask())).toMatchObject({ text: "ok", attempts: 2 });
    expect(retries).toEqual([{ attempt: 1, delayMs: 20, status: 429, code: "provider-rate-limited" }]);
  });

  it("retries 529 overloaded, then gives up after 4 attempts of 500 with provider-unavailable", async () => {
    server.enqueue(overloaded, message([{ type: "text", text: "ok" }]));
    expect(await provider().complete(ask())).toMatchObject({ attempts: 2 });
    server.enqueue(...Array.from({ length: 4 }, () => wireErrors.serverError({ type: "error", error: { type: "api_error", message: "Internal server error" } })));
    const error = await failure(provider().complete(ask()));
    expect(error).toMatchObject({ code: "provider-unavailable", status: 500, attempts: 4, message: "anthropic: HTTP 500: api_error: Internal server error (after 4 attempts)" });
    expect(server.requests).toHaveLength(6);
  });

  it("fails a 401 with provider-auth-failed, no retry, and never shows the key", async () => {
    server.enqueue(wireErrors.unauthorized({ type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${API_KEY}` } }));
    const error = await failure(provider().complete(ask()));
    expect(error).toMatchObject({ code: "provider-auth-failed", status: 401, attempts: 1, message: "anthropic: HTTP 401: authentication_error: invalid x-api-key [redacted]" });
    expect(server.requests).toHaveLength(1);
    expect(String(error.stack)).not.toContain(API_KEY);
  });

  it("fails a 403 with provider-auth-failed and a 404 with provider-request-failed, neither retried", async () => {
    server.enqueue({ status: 403, json: { type: "error", error: { type: "permission_error", message: "no" } } }, { status: 404, json: { type: "error", error: { type: "not_found_error", message: "model: x" } } });
    expect(await failure(provider().complete(ask()))).toMatchObject({ code: "provider-auth-failed", status: 403, attempts: 1 });
    expect(await failure(provider().complete(ask()))).toMatchObject({ code: "provider-request-failed", status: 404, attempts: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it("honours the abort signal", async () => {
    server.enqueue({ ...message([{ type: "text", text: "late" }]), delayMs: 5_000 });
    const controller = new AbortController();
    const started = Date.now();
    const call = provider().complete(ask({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(retries).toEqual([]);
  });
});
