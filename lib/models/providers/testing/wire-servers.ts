/**
 * Strict streaming wire servers for provider tests, integration tests and benchmarks: an OpenAI Chat Completions
 * endpoint and an Anthropic Messages endpoint on 127.0.0.1 (random port). Each checks a request as the real API
 * would (method and path → 404, credentials → 401, content type, `anthropic-version`, a JSON body with `stream: true`
 * and, for OpenAI, `stream_options.include_usage` → 400; error bodies in the provider's shape), then answers with a
 * transcript of server-sent events in the real format, written in byte chunks cut where the test says, with an
 * optional wait between writes. Given requests can fail instead: a status before the first byte (429, 500, …), a
 * connection cut (or a body ended) after n bytes, a stream that stalls after n bytes. Every request is recorded with
 * its arrival time and the time and size of each write, so time to first token can be measured.
 *
 * The transcript builders turn one answer description (`WireAnswer`) into the streamed events and into the
 * non-streamed JSON answer of each API, so a test can feed the same answer both ways; `completionToEvents` and
 * `messageToEvents` stream any non-streamed answer.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import type { FinishReason, ModelUsage } from "@/lib/models/provider";
import { isRecord } from "@/lib/models/providers/shared";
import type { ServerSentEvent } from "@/lib/models/providers/sse";

export type { ServerSentEvent } from "@/lib/models/providers/sse";

// ─── Answers and transcripts ────────────────────────────────────────────────────────────────────────────────────

/** A tool call as the model sends it: `name` is the API name; `arguments` a string (sent as is) or a value (sent as JSON). */
export type WireToolCall = { id?: string; name: string; arguments?: unknown };

/** One answer, described once for both wire formats and for both ways of sending it. */
export type WireAnswer = {
  /** The text (default none: `null` for OpenAI, no text block for Anthropic). */
  text?: string | null;
  toolCalls?: WireToolCall[];
  /** Absent or null: the answer reports no usage. */
  usage?: ModelUsage | null;
  /** Default `tool-calls` with tool calls, else `stop`; mapped to each API's value. */
  finishReason?: FinishReason;
  /** The API's own finish or stop reason, sent as is instead of the mapped one (e.g. `stop` next to tool calls). */
  rawFinishReason?: string;
  /** The model name the answer carries (default `wire-model`). */
  model?: string;
};

/** How the streamed transcripts are cut into events. */
export type TranscriptOptions = {
  /** Code points of text, or of a tool call's JSON arguments, per event (default 4; cut points never split a character). */
  pieceLength?: number;
};

const OPENAI_FINISH: Record<FinishReason, string> = { stop: "stop", "tool-calls": "tool_calls", length: "length", other: "content_filter" };
const ANTHROPIC_STOP: Record<FinishReason, string> = { stop: "end_turn", "tool-calls": "tool_use", length: "max_tokens", other: "refusal" };

const finishOf = (answer: WireAnswer): FinishReason => answer.finishReason ?? (answer.toolCalls?.length ? "tool-calls" : "stop");
const argumentsText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value ?? {}));

/** The non-streamed Chat Completions answer (`chat.completion`) for `answer`. */
export function openAICompletion(answer: WireAnswer): Record<string, unknown> {
  const toolCalls = answer.toolCalls ?? [];
  return {
    id: "chatcmpl-wire",
    object: "chat.completion",
    created: 1_700_000_000,
    model: answer.model ?? "wire-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.text ?? null,
          ...(toolCalls.length && {
            tool_calls: toolCalls.map((call) => ({ ...(call.id !== undefined && { id: call.id }), type: "function", function: { name: call.name, arguments: argumentsText(call.arguments) } })),
          }),
        },
        logprobs: null,
        finish_reason: answer.rawFinishReason ?? OPENAI_FINISH[finishOf(answer)],
      },
    ],
    usage: answer.usage ? { prompt_tokens: answer.usage.inputTokens, completion_tokens: answer.usage.outputTokens, total_tokens: answer.usage.inputTokens + answer.usage.outputTokens } : null,
  };
}

/** The streamed Chat Completions answer for `answer`: chunks, a usage chunk when there is usage, `[DONE]`. */
export function openAIStreamEvents(answer: WireAnswer, options: TranscriptOptions = {}): ServerSentEvent[] {
  return completionToEvents(openAICompletion(answer), options);
}

/**
 * The events that stream a non-streamed Chat Completions answer, as OpenAI streams with `include_usage`: a first
 * chunk with the role (and `content: ""` when there is text), the text in pieces, each tool call (id, type and name
 * in its first chunk, the arguments in pieces; arguments sent as an object are sent as their JSON), a chunk with the
 * finish reason, a chunk with empty `choices` and the usage (when the answer has usage), and `data: [DONE]`.
 */
export function completionToEvents(completion: unknown, options: TranscriptOptions = {}): ServerSentEvent[] {
  const body = isRecord(completion) ? completion : {};
  const choice = Array.isArray(body.choices) && isRecord(body.choices[0]) ? body.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const hasUsage = isRecord(body.usage);
  const envelope = { id: body.id ?? "chatcmpl-wire", object: "chat.completion.chunk", created: body.created ?? 1_700_000_000, model: body.model ?? "wire-model", system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finish: unknown = null): ServerSentEvent => ({
    data: JSON.stringify({ ...envelope, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(hasUsage && { usage: null }) }),
  });
  const events: ServerSentEvent[] = [chunk({ role: "assistant", content: typeof message.content === "string" ? "" : null, refusal: null })];
  if (typeof message.content === "string") for (const piece of pieces(message.content, options)) events.push(chunk({ content: piece }));
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const [index, raw] of calls.entries()) {
    const call = isRecord(raw) ? raw : {};
    const fn = isRecord(call.function) ? call.function : {};
    const text = argumentsText(fn.arguments);
    const [first = "", ...rest] = pieces(text, options);
    events.push(chunk({ tool_calls: [{ index, ...(call.id !== undefined && { id: call.id }), type: "function", function: { name: fn.name, arguments: first } }] }));
    for (const piece of rest) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  events.push(chunk({}, choice.finish_reason ?? "stop"));
  if (hasUsage) events.push({ data: JSON.stringify({ ...envelope, choices: [], usage: body.usage }) });
  events.push({ data: "[DONE]" });
  return events;
}

/** The non-streamed Messages answer (`type: "message"`) for `answer`; a tool call's arguments must be a JSON object (a string is parsed). */
export function anthropicMessage(answer: WireAnswer): Record<string, unknown> {
  const content = [
    ...(typeof answer.text === "string" ? [{ type: "text", text: answer.text }] : []),
    ...(answer.toolCalls ?? []).map((call, i) => ({
      type: "tool_use",
      id: call.id ?? `toolu_wire_${i}`,
      name: call.name,
      input: typeof call.arguments === "string" ? JSON.parse(call.arguments) : (call.arguments ?? {}),
    })),
  ];
  return {
    id: "msg_wire",
    type: "message",
    role: "assistant",
    model: answer.model ?? "wire-model",
    content,
    stop_reason: answer.rawFinishReason ?? ANTHROPIC_STOP[finishOf(answer)],
    stop_sequence: null,
    usage: answer.usage ? { input_tokens: answer.usage.inputTokens, output_tokens: answer.usage.outputTokens } : null,
  };
}

/** The streamed Messages answer for `answer`: `message_start` … `message_stop`. */
export function anthropicStreamEvents(answer: WireAnswer, options: TranscriptOptions = {}): ServerSentEvent[] {
  return messageToEvents(anthropicMessage(answer), options);
}

/**
 * The events that stream a non-streamed Messages answer, as Anthropic streams: `message_start` (the input tokens,
 * one output token), a `ping`, per block `content_block_start` / deltas / `content_block_stop` (text as
 * `text_delta` pieces, a tool_use block's input as `input_json_delta` pieces of its JSON, a thinking block as
 * `thinking_delta` and `signature_delta`; other blocks whole in their start), `message_delta` with the stop reason and
 * the output tokens, `message_stop`. An answer without usage streams without usage.
 */
export function messageToEvents(message: unknown, options: TranscriptOptions = {}): ServerSentEvent[] {
  const body = isRecord(message) ? message : {};
  const usage = isRecord(body.usage) ? body.usage : undefined;
  const event = (type: string, data: Record<string, unknown>): ServerSentEvent => ({ event: type, data: JSON.stringify({ type, ...data }) });
  const start = { id: body.id ?? "msg_wire", type: "message", role: "assistant", model: body.model ?? "wire-model", content: [], stop_reason: null, stop_sequence: null };
  const events = [event("message_start", { message: { ...start, ...(usage && { usage: { input_tokens: usage.input_tokens, output_tokens: 1 } }) } }), event("ping", {})];
  const blocks = Array.isArray(body.content) ? body.content : [];
  for (const [index, raw] of blocks.entries()) {
    const block = isRecord(raw) ? raw : {};
    if (block.type === "text") {
      events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const piece of pieces(typeof block.text === "string" ? block.text : "", options)) events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    } else if (block.type === "tool_use") {
      const { input, ...rest } = block;
      events.push(event("content_block_start", { index, content_block: { ...rest, input: {} } }));
      const json = input === undefined || (isRecord(input) && Object.keys(input).length === 0) ? "" : JSON.stringify(input);
      for (const piece of pieces(json, options)) events.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    } else if (block.type === "thinking") {
      events.push(event("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }));
      for (const piece of pieces(typeof block.thinking === "string" ? block.thinking : "", options)) events.push(event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
      events.push(event("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature ?? "" } }));
    } else {
      events.push(event("content_block_start", { index, content_block: block }));
    }
    events.push(event("content_block_stop", { index }));
  }
  events.push(event("message_delta", { delta: { stop_reason: body.stop_reason ?? "end_turn", stop_sequence: body.stop_sequence ?? null }, ...(usage && { usage: { output_tokens: usage.output_tokens } }) }));
  events.push(event("message_stop", {}));
  return events;
}

/** `text` in pieces of `pieceLength` code points; none for an empty text. */
function pieces(text: string, options: TranscriptOptions): string[] {
  const size = Math.max(1, options.pieceLength ?? 4);
  const points = Array.from(text);
  const parts: string[] = [];
  for (let i = 0; i < points.length; i += size) parts.push(points.slice(i, i + size).join(""));
  return parts;
}

/** How events are written out. */
export type EncodeOptions = {
  /** Line end (default LF). */
  lineEnding?: "\n" | "\r\n";
  /** A comment line (`: …`, as keep-alive proxies add) before the first event. */
  comment?: string;
};

/** The bytes of each event in the event-stream format (`event:` line when named, `data:` lines, a blank line). */
export function encodeEvents(events: ServerSentEvent[], options: EncodeOptions = {}): Buffer[] {
  const end = options.lineEnding ?? "\n";
  const encoded = events.map((event) => {
    const name = event.event === undefined ? "" : `event: ${event.event}${end}`;
    const data = event.data.split("\n").map((line) => `data: ${line}${end}`).join("");
    return Buffer.from(`${name}${data}${end}`, "utf8");
  });
  if (options.comment !== undefined && encoded.length) encoded[0] = Buffer.concat([Buffer.from(`: ${options.comment}${end}`, "utf8"), encoded[0]]);
  return encoded;
}

// ─── Servers ────────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Where the body is cut into writes: `event` (one write per event, as real servers write; the default), `byte` (one
 * byte per write), `whole` (one write), `{ size }` (writes of that many bytes), `{ cuts }` (byte offsets where a
 * write ends, e.g. inside a character or a JSON string).
 */
export type Chunking = "event" | "byte" | "whole" | { size: number } | { cuts: number[] };

/** How a given request fails instead of streaming its whole answer. */
export type StreamFault =
  /** This status before any byte of the body, with this JSON body (default: the provider's error shape for the status). */
  | { status: number; headers?: Record<string, string>; json?: unknown }
  /** The first `cutAfterBytes` bytes of the body, then the connection is destroyed (`end: true`: the body ends cleanly). */
  | { cutAfterBytes: number; end?: boolean }
  /** The first `stallAfterBytes` bytes of the body, then nothing until the client leaves or the server closes. */
  | { stallAfterBytes: number };

/** What a stream server answers. Request numbers count every request the server received, from 1. */
export type StreamServerOptions = {
  /** The API key requests must carry (`Authorization: Bearer …` / `x-api-key`); without one, any or none is accepted. */
  apiKey?: string;
  /** The answer: described (built with `pieceLength`), as events, or per request number. Default: a text "ok". */
  answer?: WireAnswer | ServerSentEvent[] | ((request: number) => WireAnswer | ServerSentEvent[]);
  pieceLength?: number;
  lineEnding?: "\n" | "\r\n";
  /** A comment line the body starts with. */
  comment?: string;
  chunking?: Chunking;
  /** Wait between two writes (default 0: the next write waits for the next turn of the event loop only). */
  delayMs?: number;
  /** Wait before the answer's headers. */
  headersDelayMs?: number;
  /** Faults by request number. */
  faults?: Record<number, StreamFault>;
};

/** One body write: when (`performance.now()`) and how many bytes. */
export type WriteRecord = { at: number; bytes: number };

/** A request a stream server received, and how it was answered. */
export type StreamRequestRecord = {
  /** 1-based, in order of arrival. */
  number: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
  /** `performance.now()` when the request's body had arrived. */
  receivedAt: number;
  /** `Date.now()` at the same moment. */
  receivedAtEpochMs: number;
  /** The answer's status. */
  status?: number;
  /** Why the request was refused (404, 401, 400), when it was. */
  problem?: string;
  /** How the answer went: streamed whole, refused, a status fault, cut or ended early, stalled, or the client left. */
  outcome?: "streamed" | "refused" | "status" | "cut" | "stalled" | "client-left";
  writes: WriteRecord[];
  /** `performance.now()` when the answer was finished (ended, cut, or left by the client). */
  finishedAt?: number;
};

/** A running wire server of the tests: where it listens, what it received, and how to change what it answers. */
export type WireTestServer<RequestRecord, Options> = {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The base URL a provider is configured with: `<url>/v1` for OpenAI's formats, `<url>` for Anthropic. */
  baseUrl: string;
  requests: RequestRecord[];
  /** Changes what later requests get (the fields given replace the ones set). */
  update(options: Partial<Options>): void;
  close(): Promise<void>;
};

/** A running stream server. */
export type StreamServer = WireTestServer<StreamRequestRecord, StreamServerOptions>;

type Dialect = {
  path: string;
  baseUrl: (url: string) => string;
  /** What is wrong with the request's headers or body, with the status the API answers it with. */
  check(headers: IncomingHttpHeaders, body: unknown, apiKey: string | undefined): { status: number; message: string } | undefined;
  errorBody(status: number, message: string): unknown;
  events(answer: WireAnswer, options: TranscriptOptions): ServerSentEvent[];
};

const isJsonContentType = (headers: IncomingHttpHeaders) => /^application\/json\s*(;|$)/i.test(headers["content-type"] ?? "");

const OPENAI: Dialect = {
  path: "/v1/chat/completions",
  baseUrl: (url) => `${url}/v1`,
  check(headers, body, apiKey) {
    if (apiKey !== undefined && headers.authorization !== `Bearer ${apiKey}`) return { status: 401, message: "Incorrect API key provided." };
    if (!isJsonContentType(headers)) return { status: 400, message: "The content type must be application/json." };
    if (!isRecord(body)) return { status: 400, message: "The body is not a JSON object." };
    if (typeof body.model !== "string" || body.model === "") return { status: 400, message: "you must provide a model parameter" };
    if (!Array.isArray(body.messages) || body.messages.length === 0) return { status: 400, message: "'messages' must be a non-empty array" };
    if (body.stream !== true) return { status: 400, message: "this server streams only: 'stream' must be true" };
    if (!isRecord(body.stream_options) || body.stream_options.include_usage !== true) return { status: 400, message: "'stream_options' must be {\"include_usage\": true}" };
    return undefined;
  },
  errorBody(status, message) {
    const type = status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error";
    const code = status === 401 ? "invalid_api_key" : status === 429 ? "rate_limit_exceeded" : status === 404 ? "unknown_url" : null;
    return { error: { message, type, param: null, code } };
  },
  events: openAIStreamEvents,
};

const ANTHROPIC: Dialect = {
  path: "/v1/messages",
  baseUrl: (url) => url,
  check(headers, body, apiKey) {
    if (apiKey !== undefined && headers["x-api-key"] !== apiKey) return { status: 401, message: "invalid x-api-key" };
    if (headers["anthropic-version"] === undefined) return { status: 400, message: "anthropic-version: header is required" };
    if (headers["anthropic-version"] !== "2023-06-01") return { status: 400, message: `anthropic-version: unknown version ${headers["anthropic-version"]}` };
    if (!isJsonContentType(headers)) return { status: 400, message: "The content type must be application/json." };
    if (!isRecord(body)) return { status: 400, message: "The body is not a JSON object." };
    if (typeof body.model !== "string" || body.model === "") return { status: 400, message: "model: Field required" };
    if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) return { status: 400, message: "max_tokens: Field required" };
    if (!Array.isArray(body.messages)) return { status: 400, message: "messages: Field required" };
    if (body.stream !== true) return { status: 400, message: "this server streams only: stream must be true" };
    return undefined;
  },
  errorBody(status, message) {
    const types: Record<number, string> = { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error" };
    return { type: "error", error: { type: types[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message } };
  },
  events: anthropicStreamEvents,
};

/** Starts a strict OpenAI Chat Completions stream server (`POST /v1/chat/completions`). */
export function startOpenAIStreamServer(options: StreamServerOptions = {}): Promise<StreamServer> {
  return startStreamServer(OPENAI, options);
}

/** Starts a strict Anthropic Messages stream server (`POST /v1/messages`, `anthropic-version: 2023-06-01`). */
export function startAnthropicStreamServer(options: StreamServerOptions = {}): Promise<StreamServer> {
  return startStreamServer(ANTHROPIC, options);
}

const DEFAULT_STATUS_MESSAGES: Record<number, string> = { 429: "Rate limit reached", 500: "The server had an error", 503: "Service unavailable", 529: "Overloaded" };

async function startStreamServer(dialect: Dialect, initial: StreamServerOptions): Promise<StreamServer> {
  let options = { ...initial };
  const requests: StreamRequestRecord[] = [];
  const server = createServer({ noDelay: true }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    const record: StreamRequestRecord = {
      number: requests.length + 1,
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      rawBody,
      body: parseJson(rawBody),
      receivedAt: performance.now(),
      receivedAtEpochMs: Date.now(),
      writes: [],
    };
    requests.push(record);
    const current = options;
    const finish = (outcome: NonNullable<StreamRequestRecord["outcome"]>) => {
      record.outcome = outcome;
      record.finishedAt = performance.now();
    };
    const answerJson = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(json));
    };

    const refusal =
      record.method !== "POST" || record.path !== dialect.path ? { status: 404, message: `no route for ${record.method} ${record.path}` } : dialect.check(req.headers, record.body, current.apiKey);
    if (refusal) {
      record.problem = refusal.message;
      answerJson(refusal.status, dialect.errorBody(refusal.status, refusal.message));
      return finish("refused");
    }
    if (current.headersDelayMs) await wait(current.headersDelayMs);
    if (res.destroyed) return finish("client-left");
    const fault = current.faults?.[record.number];
    if (fault && "status" in fault) {
      answerJson(fault.status, fault.json ?? dialect.errorBody(fault.status, DEFAULT_STATUS_MESSAGES[fault.status] ?? `HTTP ${fault.status}`), fault.headers);
      return finish("status");
    }

    const answer = typeof current.answer === "function" ? current.answer(record.number) : (current.answer ?? { text: "ok", usage: { inputTokens: 1, outputTokens: 1 } });
    const events = Array.isArray(answer) ? answer : dialect.events(answer, { pieceLength: current.pieceLength });
    const encoded = encodeEvents(events, { lineEnding: current.lineEnding, comment: current.comment });
    const body = Buffer.concat(encoded);
    const limit = fault && "cutAfterBytes" in fault ? fault.cutAfterBytes : fault && "stallAfterBytes" in fault ? fault.stallAfterBytes : body.length;
    record.status = 200;
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    const isGone = () => res.destroyed || res.writableEnded;
    for (const [i, [from, to]] of writeRanges(encoded, current.chunking ?? "event", Math.min(limit, body.length)).entries()) {
      if (i > 0) await wait(current.delayMs ?? 0);
      if (isGone()) return finish("client-left");
      res.write(body.subarray(from, to));
      record.writes.push({ at: performance.now(), bytes: to - from });
    }
    if (fault && "cutAfterBytes" in fault) {
      // Let the written bytes leave before the cut, so the client reads them and then the break.
      await wait(5);
      if (fault.end) res.end();
      else res.socket?.destroy();
      return finish("cut");
    }
    if (fault && "stallAfterBytes" in fault) {
      if (!res.destroyed) await new Promise<void>((resolve) => res.once("close", () => resolve()));
      return finish("stalled");
    }
    res.end();
    finish("streamed");
  });
  return listening(server, dialect.baseUrl, requests, (changes) => {
    options = { ...options, ...changes };
  });
}

/** `server` listening on 127.0.0.1 (a free port) as a wire test server; closing it drops its connections. */
export async function listening<RequestRecord, Options>(server: Server, baseUrlOf: (url: string) => string, requests: RequestRecord[], update: (changes: Partial<Options>) => void): Promise<WireTestServer<RequestRecord, Options>> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, baseUrl: baseUrlOf(url), requests, update, close };
}

/** The [from, to) byte ranges of the writes of `events` under `chunking`, up to `limit` bytes. */
export function writeRanges(events: Buffer[], chunking: Chunking, limit: number): [number, number][] {
  const ends: number[] = [];
  const total = events.reduce((sum, event) => sum + event.length, 0);
  if (chunking === "event") {
    let offset = 0;
    for (const event of events) ends.push((offset += event.length));
  } else if (chunking === "byte") {
    for (let i = 1; i <= total; i++) ends.push(i);
  } else if (chunking === "whole") {
    ends.push(total);
  } else if ("size" in chunking) {
    const size = Math.max(1, Math.floor(chunking.size));
    for (let i = size; i < total + size; i += size) ends.push(Math.min(i, total));
  } else {
    ends.push(...[...new Set(chunking.cuts)].filter((cut) => cut > 0 && cut < total).sort((a, b) => a - b), total);
  }
  const ranges: [number, number][] = [];
  let from = 0;
  for (const end of ends) {
    const to = Math.min(end, limit);
    if (to > from) ranges.push([from, to]);
    from = Math.max(from, to);
    if (from >= limit) break;
  }
  return ranges;
}

/** A pause between writes: `ms`, or just the next turn of the event loop, so each write leaves on its own. */
const wait = (ms: number) => new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Writes `events` as an event-stream answer in one go (for servers that answer from a queue). */
export function writeEventStream(res: ServerResponse, events: ServerSentEvent[], headers: Record<string, string> = {}, status = 200): void {
  res.writeHead(status, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers });
  res.end(Buffer.concat(encodeEvents(events)));
}
