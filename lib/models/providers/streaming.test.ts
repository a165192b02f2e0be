import { afterEach, describe, expect, it } from "vitest";
import { ModelProviderError, ToolNameMap, type ModelDelta, type ModelProvider, type ModelRequest, type ModelResponse, type ToolSpec } from "@/lib/models/provider";
import { createAnthropicProvider, parseMessagesAnswer } from "@/lib/models/providers/anthropic";
import type { HttpOptions, RetryInfo } from "@/lib/models/providers/http";
import { createOpenAICompatibleProvider, parseChatCompletion } from "@/lib/models/providers/openai-compatible";
import { NO_USAGE, withCost, type HttpProviderConfig } from "@/lib/models/providers/shared";
import {
  anthropicMessage,
  anthropicStreamEvents,
  encodeEvents,
  openAICompletion,
  openAIStreamEvents,
  startAnthropicStreamServer,
  startOpenAIStreamServer,
  writeRanges,
  type ServerSentEvent,
  type StreamServer,
  type StreamServerOptions,
  type TranscriptOptions,
  type WireAnswer,
} from "@/lib/models/providers/testing/wire-servers";
import { pinnedFetch } from "@/lib/tools/pinned-fetch";

const API_KEY = "sk-test-STREAM-0123456789abcdef";
const MODEL = "wire-model";
const FAST = { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 20, timeoutMs: 2_000 };
const search: ToolSpec = { name: "acme.search", description: "Search", inputSchema: { type: "object", properties: { q: { type: "string" } } } };
const TOOLS = [search];
const names = new ToolNameMap(TOOLS.map((tool) => tool.name));

/** Text and tool calls with two-, three- and four-byte UTF-8 characters, in text and in arguments. */
const RICH: WireAnswer = {
  text: "Grüße, café! 日本語のテキスト 🎉🚀 — fin.",
  toolCalls: [
    { id: "call_rich_1", name: "acme_search", arguments: { q: "日本 café 🎉", limit: 3, nested: { list: [1, "é"] } } },
    { id: "call_rich_2", name: "invented_tool", arguments: {} },
  ],
  usage: { inputTokens: 1_234, outputTokens: 56 },
};

/** One provider kind, as these tests drive it. */
type Dialect = {
  name: string;
  start: (options: StreamServerOptions) => Promise<StreamServer>;
  create: (config: HttpProviderConfig) => ModelProvider;
  /** What the non-streamed parser reads from the same answer sent whole. */
  parseWhole: (answer: WireAnswer, callIndex: number) => ReturnType<typeof parseChatCompletion>;
  events: (answer: WireAnswer, options?: TranscriptOptions) => ServerSentEvent[];
  /** An event that fails the attempt after its first byte, as this API sends one. */
  errorEvent: ServerSentEvent;
};

const DIALECTS: Dialect[] = [
  {
    name: "openai-compatible",
    start: startOpenAIStreamServer,
    create: createOpenAICompatibleProvider,
    parseWhole: (answer, callIndex) => parseChatCompletion(openAICompletion(answer), names, callIndex),
    events: openAIStreamEvents,
    errorEvent: { data: JSON.stringify({ error: { message: "The server had an error while processing your request", type: "server_error" } }) },
  },
  {
    name: "anthropic",
    start: startAnthropicStreamServer,
    create: createAnthropicProvider,
    parseWhole: (answer) => parseMessagesAnswer(anthropicMessage(answer), names),
    events: anthropicStreamEvents,
    errorEvent: { event: "error", data: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) },
  },
];

let servers: StreamServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ModelProviderError);
  return error as ModelProviderError;
}

/** Collects the deltas of a call. */
function listener() {
  const deltas: ModelDelta[] = [];
  return { deltas, onDelta: (delta: ModelDelta) => deltas.push(structuredClone(delta)) };
}

/** What the deltas of one attempt assemble to: the text and each tool call's id, name and arguments text. */
function assemble(deltas: ModelDelta[], attempt: number) {
  const mine = deltas.filter((delta) => delta.attempt === attempt);
  const calls: { id?: string; name?: string; arguments: string }[] = [];
  for (const piece of mine.flatMap((delta) => delta.toolCalls ?? [])) {
    const call = (calls[piece.index] ??= { arguments: "" });
    if (piece.id !== undefined) {
      expect(call.id).toBeUndefined();
      call.id = piece.id;
    }
    if (piece.name !== undefined) {
      expect(call.name).toBeUndefined();
      call.name = piece.name;
    }
    call.arguments += piece.argumentsDelta;
  }
  return { text: mine.map((delta) => delta.text ?? "").join(""), calls };
}

describe.each(DIALECTS)("$name streaming", (dialect) => {
  let retries: RetryInfo[] = [];

  async function serve(options: StreamServerOptions): Promise<StreamServer> {
    const server = await dialect.start({ apiKey: API_KEY, ...options });
    servers.push(server);
    return server;
  }

  const config = (server: StreamServer, http: HttpOptions = {}): HttpProviderConfig => ({
    id: dialect.name,
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    models: [{ name: MODEL, inputUsdPerMTok: 3, outputUsdPerMTok: 15 }],
    http: { policy: FAST, onRetry: (info) => retries.push(info), ...http },
  });

  const provider = (server: StreamServer, http?: HttpOptions) => dialect.create(config(server, http));
  const ask = (onDelta?: (delta: ModelDelta) => void, overrides: Partial<ModelRequest> = {}): ModelRequest => ({ model: MODEL, messages: [{ role: "user", content: "hi" }], tools: TOOLS, callIndex: 2, onDelta, ...overrides });

  /** The response the non-streamed parser gives for `answer`, with its cost, after `attempts`. */
  function whole(server: StreamServer, answer: WireAnswer, attempts: number): ModelResponse {
    const parsed = dialect.parseWhole(answer, 2);
    if (typeof parsed === "string") throw new Error(parsed);
    return withCost(config(server), MODEL, parsed, attempts);
  }

  afterEach(() => {
    retries = [];
  });

  it("assembles, from a stream written one byte at a time, the answer the non-streamed parser reads, and says it in ordered deltas", async () => {
    const server = await serve({ answer: RICH, chunking: "byte" });
    const { deltas, onDelta } = listener();
    const answer = await provider(server).complete(ask(onDelta));
    expect(answer).toEqual(whole(server, RICH, 1));
    expect(answer.text).toBe(RICH.text);
    expect(answer.toolCalls).toEqual([
      { id: "call_rich_1", name: "acme.search", arguments: { q: "日本 café 🎉", limit: 3, nested: { list: [1, "é"] } } },
      { id: "call_rich_2", name: "invented_tool", arguments: {} },
    ]);
    expect(answer).toMatchObject({ usage: { inputTokens: 1_234, outputTokens: 56 }, costUsd: (1_234 * 3 + 56 * 15) / 1_000_000, finishReason: "tool-calls", warnings: [] });
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.every((delta) => delta.attempt === 1)).toBe(true);
    const said = assemble(deltas, 1);
    expect(said.text).toBe(answer.text);
    expect(said.calls.map((call) => ({ id: call.id, name: call.name, arguments: JSON.parse(call.arguments || "{}") }))).toEqual(answer.toolCalls);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].writes.length).toBe(server.requests[0].writes.reduce((sum, write) => sum + write.bytes, 0));
  });

  it("reads a stream whose writes are cut inside UTF-8 characters and inside a tool call's arguments", async () => {
    const events = dialect.events(RICH, { pieceLength: 5 });
    const body = Buffer.concat(encodeEvents(events));
    const at = (text: string, offset: number, last = false) => {
      const needle = Buffer.from(text, "utf8");
      const index = last ? body.lastIndexOf(needle) : body.indexOf(needle);
      expect(index).toBeGreaterThan(-1);
      return index + offset;
    };
    // Inside é (2 bytes), 日 (3) and 🎉 (4) of the text, and inside the 🎉 and the last é of the tool call's arguments.
    const cuts = [at("é", 1), at("日", 1), at("日", 2), at("🎉", 1), at("🎉", 3), at("🎉", 2, true), at("é", 1, true)];
    const server = await serve({ answer: events, chunking: { cuts }, delayMs: 2 });
    const { deltas, onDelta } = listener();
    const answer = await provider(server).complete(ask(onDelta));
    expect(answer).toEqual(whole(server, RICH, 1));
    expect(server.requests[0].writes).toHaveLength(cuts.length + 1);
    expect(deltas.flatMap((delta) => (delta.text ? [delta.text] : []))).toEqual(expect.arrayContaining(["Grüße", ", caf"]));
    expect(assemble(deltas, 1).text).toBe(RICH.text);
  });

  it("gives the same answer whatever the single cut in the body, read straight from the bytes", async () => {
    const events = dialect.events(RICH, { pieceLength: 7 });
    const body = Buffer.concat(encodeEvents(events, { lineEnding: "\r\n", comment: "keep-alive" }));
    const server = await serve({});
    const expected = whole(server, RICH, 1);
    for (let cut = 1; cut < body.length; cut++) {
      const chunks = [body.subarray(0, cut), body.subarray(cut)];
      const answer = await provider(server, { fetch: chunkedFetch(chunks) }).complete(ask());
      expect(answer).toEqual(expected);
    }
    const byByte = listener();
    expect(await provider(server, { fetch: chunkedFetch([...body].map((byte) => Uint8Array.of(byte))) }).complete(ask(byByte.onDelta))).toEqual(expected);
    expect(assemble(byByte.deltas, 1).text).toBe(RICH.text);
  });

  it("gives the non-streamed parser's answer for every shape of answer", async () => {
    const shapes: WireAnswer[] = [
      { text: "", usage: { inputTokens: 1, outputTokens: 0 } },
      { toolCalls: [{ id: "call_only", name: "acme_search", arguments: { q: "x" } }], usage: { inputTokens: 2, outputTokens: 3 } },
      { text: "", toolCalls: [{ id: "call_x", name: "acme_search", arguments: {} }], rawFinishReason: "stop", usage: { inputTokens: 2, outputTokens: 3 } },
      { text: "a", toolCalls: [{ id: "c1", name: "acme_search", arguments: { q: "1" } }, { id: "c2", name: "acme_search", arguments: { q: "2" } }, { id: "c3", name: "other", arguments: { deep: { a: [1, 2, { b: "é" }] } } }] },
      { text: "odd stop", rawFinishReason: "something_new", usage: { inputTokens: 0, outputTokens: 0 } },
      ...(dialect.name === "openai-compatible"
        ? [
            { toolCalls: [{ name: "acme_search", arguments: "{not json" }, { name: "acme_search", arguments: "  " }, { id: "c9", name: "invented", arguments: "" }] },
            { text: "filtered", finishReason: "other" as const },
          ]
        : [{ text: "refused", finishReason: "other" as const }]),
    ];
    const server = await serve({ answer: (request) => shapes[request - 1], pieceLength: 3 });
    for (const shape of shapes) {
      const { deltas, onDelta } = listener();
      const answer = await provider(server).complete(ask(onDelta));
      expect(answer).toEqual(whole(server, shape, 1));
      expect(assemble(deltas, 1).text).toBe(answer.text ?? "");
      expect(assemble(deltas, 1).calls.map((call) => ({ id: call.id, name: call.name }))).toEqual(answer.toolCalls.map((call) => ({ id: call.id, name: call.name })));
    }
    expect(server.requests).toHaveLength(shapes.length);
  });

  it("reads CRLF line ends and comment lines from the server", async () => {
    const server = await serve({ answer: RICH, lineEnding: "\r\n", comment: "processing", chunking: { size: 3 } });
    expect(await provider(server).complete(ask())).toEqual(whole(server, RICH, 1));
  });

  it("reads usage from the end of the stream, maps the finish reason, and warns when the answer reports no usage", async () => {
    const cut: WireAnswer = { text: "truncated", finishReason: "length", usage: { inputTokens: 10, outputTokens: 4_096 } };
    const bare: WireAnswer = { text: "no usage", usage: null };
    const server = await serve({ answer: (request) => (request === 1 ? cut : bare), pieceLength: 2 });
    const first = await provider(server).complete(ask());
    expect(first).toEqual(whole(server, cut, 1));
    expect(first).toMatchObject({ finishReason: "length", usage: { inputTokens: 10, outputTokens: 4_096 } });
    const second = await provider(server).complete(ask());
    expect(second).toEqual(whole(server, bare, 1));
    expect(second.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(second.warnings).toContain(`${dialect.name}: ${NO_USAGE}`);
  });

  it("starts a call over as attempt 2 when its stream is cut mid-answer: attempt-2 deltas, the second attempt's answer", async () => {
    const firstTry: WireAnswer = { text: "The first attempt, which never ends", usage: { inputTokens: 5, outputTokens: 7 } };
    const secondTry: WireAnswer = { text: "The second attempt — complete ✓", usage: { inputTokens: 5, outputTokens: 9 } };
    const events = dialect.events(firstTry);
    // Inside the sixth event: the first text pieces are out, the answer is not.
    const cutAfterBytes = encodeEvents(events.slice(0, 5)).reduce((sum, event) => sum + event.length, 0) + 10;
    const server = await serve({ answer: (request) => (request === 1 ? events : dialect.events(secondTry)), faults: { 1: { cutAfterBytes } }, chunking: { size: 40 } });
    const { deltas, onDelta } = listener();
    const answer = await provider(server).complete(ask(onDelta));
    expect(answer).toEqual(whole(server, secondTry, 2));
    expect(server.requests.map((request) => request.outcome)).toEqual(["cut", "streamed"]);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, code: "provider-unavailable", status: 200 })]);
    const attempts = deltas.map((delta) => delta.attempt);
    expect(attempts).toEqual([...attempts].sort());
    expect(new Set(attempts)).toEqual(new Set([1, 2]));
    const early = assemble(deltas, 1).text;
    expect(early.length).toBeGreaterThan(0);
    expect(firstTry.text?.startsWith(early)).toBe(true);
    expect(early).not.toBe(firstTry.text);
    expect(assemble(deltas, 2).text).toBe(secondTry.text);
  });

  it("counts a body that ends without the terminal event as a broken attempt", async () => {
    const events = dialect.events({ text: "short", usage: { inputTokens: 1, outputTokens: 1 } });
    const last = encodeEvents(events).at(-1)?.length ?? 0;
    const total = Buffer.concat(encodeEvents(events)).length;
    const server = await serve({ answer: events, faults: { 1: { cutAfterBytes: total - last, end: true } } });
    const answer = await provider(server).complete(ask());
    expect(answer).toMatchObject({ text: "short", attempts: 2 });
    expect(retries[0]).toMatchObject({ attempt: 1, code: "provider-unavailable" });
  });

  it("fails with provider-unavailable after maxRetries + 1 attempts when every stream is cut", async () => {
    const faults = Object.fromEntries([1, 2, 3].map((request) => [request, { cutAfterBytes: 60 }]));
    const server = await serve({ answer: RICH, faults });
    const { deltas, onDelta } = listener();
    const error = await failure(provider(server, { policy: { ...FAST, maxRetries: 2 } }).complete(ask(onDelta)));
    expect(error).toMatchObject({ code: "provider-unavailable", status: 200, attempts: 3 });
    expect(error.message).toMatch(new RegExp(`^${dialect.name}: the stream broke off after 60 bytes .*\\(after 3 attempts\\)$`));
    expect(server.requests).toHaveLength(3);
    expect(retries.map((retry) => retry.attempt)).toEqual([1, 2]);
    expect(deltas.every((delta) => delta.attempt >= 1 && delta.attempt <= 3)).toBe(true);
  });

  it("fails with provider-bad-response after the retries when every stream carries a malformed event", async () => {
    const events = dialect.events({ text: "fine so far" });
    const malformed = [...events.slice(0, 3), { ...events[3], data: "{not json" }, ...events.slice(4)];
    const server = await serve({ answer: malformed });
    const error = await failure(provider(server).complete(ask()));
    expect(error).toMatchObject({ code: "provider-bad-response", status: 200, attempts: 4 });
    expect(server.requests).toHaveLength(4);
  });

  it("takes an error event mid-stream as a broken attempt and retries it", async () => {
    const events = dialect.events({ text: "partial answer, then an error" });
    const server = await serve({ answer: (request) => (request === 1 ? [...events.slice(0, 4), dialect.errorEvent] : events) });
    const { deltas, onDelta } = listener();
    const answer = await provider(server).complete(ask(onDelta));
    expect(answer).toMatchObject({ text: "partial answer, then an error", attempts: 2 });
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, code: "provider-unavailable" })]);
    expect(deltas[0].attempt).toBe(1);
    expect(assemble(deltas, 2).text).toBe("partial answer, then an error");
  });

  it("retries a 429 answered before the first byte, and numbers the deltas with the attempt that streamed", async () => {
    const server = await serve({ answer: RICH, faults: { 1: { status: 429, headers: { "retry-after": "0" } } } });
    const { deltas, onDelta } = listener();
    const answer = await provider(server).complete(ask(onDelta));
    expect(answer).toEqual(whole(server, RICH, 2));
    expect(retries).toEqual([{ attempt: 1, delayMs: 0, status: 429, code: "provider-rate-limited" }]);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((delta) => delta.attempt === 2)).toBe(true);
  });

  it("retries a 500, then gives up on a lasting one with the provider's message", async () => {
    const server = await serve({ answer: RICH, faults: { 1: { status: 500 }, 3: { status: 500 }, 4: { status: 500 } } });
    expect(await provider(server).complete(ask())).toMatchObject({ attempts: 2 });
    const error = await failure(provider(server, { policy: { ...FAST, maxRetries: 1 } }).complete(ask()));
    expect(error).toMatchObject({ code: "provider-unavailable", status: 500, attempts: 2 });
    expect(error.message).toContain("The server had an error");
  });

  it("fails an attempt whose stream stays silent for timeoutMs, and retries it", async () => {
    const server = await serve({ answer: RICH, faults: { 1: { stallAfterBytes: 80 } } });
    const started = Date.now();
    const answer = await provider(server, { policy: { ...FAST, timeoutMs: 150 } }).complete(ask());
    expect(answer).toEqual(whole(server, RICH, 2));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(retries[0]).toMatchObject({ attempt: 1, code: "provider-unavailable" });
  });

  it("rejects with the signal's reason at once when the call is aborted mid-stream", async () => {
    const server = await serve({ answer: RICH, delayMs: 300 });
    const controller = new AbortController();
    const { deltas, onDelta } = listener();
    let abortedAt = 0;
    const call = provider(server).complete(
      ask((delta) => {
        onDelta(delta);
        if (!controller.signal.aborted) {
          abortedAt = Date.now();
          controller.abort(new Error("the run was cancelled"));
        }
      }, { signal: controller.signal }),
    );
    await expect(call).rejects.toThrow("the run was cancelled");
    expect(Date.now() - abortedAt).toBeLessThan(150);
    expect(deltas).toHaveLength(1);
    expect(retries).toEqual([]);
    await expect.poll(() => server.requests[0].outcome, { timeout: 2_000 }).toBe("client-left");
    expect(server.requests).toHaveLength(1);
  });

  it("reads no event after the delta whose listener aborted the call, even when the whole answer came in one chunk", async () => {
    const server = await serve({});
    const body = Buffer.concat(encodeEvents(dialect.events(RICH)));
    const controller = new AbortController();
    const { deltas, onDelta } = listener();
    const call = provider(server, { fetch: chunkedFetch([body]) }).complete(
      ask((delta) => {
        onDelta(delta);
        controller.abort(new Error("enough"));
      }, { signal: controller.signal }),
    );
    await expect(call).rejects.toThrow("enough");
    expect(deltas).toHaveLength(1);
  });

  it("streams through the pinned fetch of a tenant provider: pieces, a cut as a new attempt, an abort mid-body", async () => {
    const server = await serve({ answer: RICH, chunking: { size: 16 }, faults: { 2: { cutAfterBytes: 100 } } });
    const { port } = new URL(server.url);
    const pinned = pinnedFetch(async () => ({ hostname: "127.0.0.1", port: Number(port), address: "127.0.0.1", family: 4 }));
    try {
      const first = listener();
      expect(await provider(server, { fetch: pinned.fetch }).complete(ask(first.onDelta))).toEqual(whole(server, RICH, 1));
      expect(assemble(first.deltas, 1).text).toBe(RICH.text);
      const second = listener();
      expect(await provider(server, { fetch: pinned.fetch }).complete(ask(second.onDelta))).toEqual(whole(server, RICH, 2));
      expect(assemble(second.deltas, 2).text).toBe(RICH.text);
      server.update({ delayMs: 300, chunking: "event" });
      const controller = new AbortController();
      let abortedAt = 0;
      const call = provider(server, { fetch: pinned.fetch }).complete(
        ask(() => {
          if (controller.signal.aborted) return;
          abortedAt = Date.now();
          controller.abort(new Error("cancelled mid-body"));
        }, { signal: controller.signal }),
      );
      await expect(call).rejects.toThrow("cancelled mid-body");
      expect(Date.now() - abortedAt).toBeLessThan(150);
    } finally {
      pinned.close();
    }
  });

  it("never shows the API key when the strict server refuses it", async () => {
    const server = await serve({ apiKey: "sk-another-key-entirely" });
    const error = await failure(provider(server).complete(ask()));
    expect(error).toMatchObject({ code: "provider-auth-failed", status: 401, attempts: 1 });
    expect(error.message).not.toContain(API_KEY);
    expect(server.requests[0].outcome).toBe("refused");
  });

  it("records each request's arrival and each write, so time to first token can be measured", async () => {
    const server = await serve({ answer: RICH, delayMs: 5 });
    const before = performance.now();
    let firstDeltaAt = 0;
    await provider(server).complete(ask(() => (firstDeltaAt ||= performance.now())));
    const [request] = server.requests;
    expect(request.receivedAt).toBeGreaterThanOrEqual(before);
    expect(request.receivedAtEpochMs).toBeGreaterThan(Date.now() - 10_000);
    expect(request.writes.length).toBe(dialect.events(RICH).length);
    expect(request.writes[0].at).toBeGreaterThanOrEqual(request.receivedAt);
    expect(firstDeltaAt).toBeGreaterThan(request.writes[0].at);
    expect(request.finishedAt).toBeGreaterThanOrEqual(request.writes.at(-1)?.at ?? Number.POSITIVE_INFINITY);
    expect(request.body).toMatchObject({ model: MODEL, stream: true });
  });
});

describe("strict stream servers", () => {
  async function post(url: string, headers: Record<string, string>, body: unknown) {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  it("OpenAI: refuses a request without stream options, without stream, with another key, or on another path", async () => {
    const server = await startOpenAIStreamServer({ apiKey: "k-1" });
    servers.push(server);
    const auth = { authorization: "Bearer k-1" };
    const body = { model: "m", messages: [{ role: "user", content: "hi" }], stream: true };
    const noOptions = await post(`${server.baseUrl}/chat/completions`, auth, body);
    expect(noOptions).toMatchObject({ status: 400, json: { error: { type: "invalid_request_error" } } });
    expect(String((noOptions.json.error as Record<string, unknown>).message)).toContain("stream_options");
    expect((await post(`${server.baseUrl}/chat/completions`, auth, { ...body, stream: false, stream_options: { include_usage: true } })).status).toBe(400);
    expect(await post(`${server.baseUrl}/chat/completions`, { authorization: "Bearer nope" }, { ...body, stream_options: { include_usage: true } })).toMatchObject({ status: 401, json: { error: { code: "invalid_api_key" } } });
    expect((await post(`${server.url}/chat/completions`, auth, { ...body, stream_options: { include_usage: true } })).status).toBe(404);
    expect(server.requests.map((request) => request.outcome)).toEqual(["refused", "refused", "refused", "refused"]);
    expect(server.requests[0].problem).toContain("stream_options");
    const accepted = await fetch(`${server.baseUrl}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...auth }, body: JSON.stringify({ ...body, stream_options: { include_usage: true } }) });
    expect(accepted.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await accepted.text()).toMatch(/data: \[DONE\]\n\n$/);
  });

  it("Anthropic: refuses a request without stream, without anthropic-version, or with another key, in Anthropic's error shape", async () => {
    const server = await startAnthropicStreamServer({ apiKey: "k-2" });
    servers.push(server);
    const headers = { "x-api-key": "k-2", "anthropic-version": "2023-06-01" };
    const body = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
    expect(await post(`${server.url}/v1/messages`, headers, body)).toMatchObject({ status: 400, json: { type: "error", error: { type: "invalid_request_error" } } });
    expect((await post(`${server.url}/v1/messages`, { "x-api-key": "k-2" }, { ...body, stream: true })).status).toBe(400);
    expect(await post(`${server.url}/v1/messages`, { ...headers, "x-api-key": "k-3" }, { ...body, stream: true })).toMatchObject({ status: 401, json: { error: { type: "authentication_error" } } });
    const accepted = await fetch(`${server.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ ...body, stream: true }) });
    expect(await accepted.text()).toMatch(/^event: message_start\n[\s\S]*event: message_stop\ndata: \{"type":"message_stop"\}\n\n$/);
  });

  it("cuts the body into writes by event, byte, size or explicit offsets, up to a limit", () => {
    const events = [Buffer.from("abc"), Buffer.from("defg")];
    expect(writeRanges(events, "event", 7)).toEqual([[0, 3], [3, 7]]);
    expect(writeRanges(events, "whole", 7)).toEqual([[0, 7]]);
    expect(writeRanges(events, "byte", 3)).toEqual([[0, 1], [1, 2], [2, 3]]);
    expect(writeRanges(events, { size: 3 }, 7)).toEqual([[0, 3], [3, 6], [6, 7]]);
    expect(writeRanges(events, { cuts: [5, 1, 5, 9] }, 7)).toEqual([[0, 1], [1, 5], [5, 7]]);
    expect(writeRanges(events, "event", 5)).toEqual([[0, 3], [3, 5]]);
  });
});

/** A fetch that answers 200 with an event stream of exactly these chunks, one per read. */
function chunkedFetch(chunks: Uint8Array[]): typeof fetch {
  return (async () => {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next < chunks.length) controller.enqueue(chunks[next++]);
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  }) as typeof fetch;
}
