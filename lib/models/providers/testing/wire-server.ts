/**
 * A local HTTP server for provider tests: it listens on 127.0.0.1 (random port), records every request, and
 * answers each one with the next queued reply — real wire-format bodies, errors, rate limits, malformed JSON,
 * delays. With no reply queued it answers 418, which providers do not retry, so a missing reply fails fast.
 * A successful `json` reply that is a whole Chat Completions or Messages answer goes out as the equivalent event
 * stream when the request asks for one (`"stream": true`, as the providers do), so a test can queue answers in
 * their plain form. (`wire-servers.ts` has the strict streaming servers, with chunking and faults.)
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { isRecord } from "@/lib/models/providers/shared";
import { completionToEvents, messageToEvents, writeEventStream, type ServerSentEvent } from "@/lib/models/providers/testing/wire-servers";

/** One scripted answer. `json` is sent as JSON; `body` is sent verbatim (for malformed bodies). */
export type WireReply = { status?: number; headers?: Record<string, string>; json?: unknown; body?: string; delayMs?: number };

/** A request the server received. `body` is the parsed JSON, or undefined when the body was not JSON. */
export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; rawBody: string; body: unknown };

/** A running wire server. */
export type WireServer = {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  /** Queues replies, answered in order. */
  enqueue(...replies: WireReply[]): void;
  close(): Promise<void>;
};

/** Starts a wire server with these replies queued. */
export async function startWireServer(...replies: WireReply[]): Promise<WireServer> {
  const queue = [...replies];
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    const body = parseJson(rawBody);
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, rawBody, body });
    const reply = queue.shift() ?? { status: 418, json: { error: { message: `wire server: no reply queued for request ${requests.length}` } } };
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    const status = reply.status ?? 200;
    const events = isRecord(body) && body.stream === true && status < 300 && reply.body === undefined ? streamOf(reply.json) : undefined;
    if (events) return writeEventStream(res, events, reply.headers, status);
    res.writeHead(status, { "content-type": "application/json", ...reply.headers });
    res.end(reply.body ?? (reply.json === undefined ? "" : JSON.stringify(reply.json)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...more) => queue.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Ready-made error answers. */
export const wireErrors = {
  /** 429 with `Retry-After: <seconds>`. */
  rateLimited: (retryAfterSeconds: number, json: unknown = { error: { type: "rate_limit_error", message: "Rate limit reached" } }): WireReply => ({
    status: 429,
    headers: { "retry-after": String(retryAfterSeconds) },
    json,
  }),
  /** 500 with a JSON error. */
  serverError: (json: unknown = { error: { type: "server_error", message: "The server had an error" } }): WireReply => ({ status: 500, json }),
  /** 401 with a JSON error (pass one that echoes the key to test redaction). */
  unauthorized: (json: unknown = { error: { type: "authentication_error", message: "invalid api key" } }): WireReply => ({ status: 401, json }),
  /** 200 with a body that is not JSON. */
  malformed: (): WireReply => ({ status: 200, body: '{"choices": [' }),
};

/** The events that stream `json` when it is a whole Chat Completions or Messages answer. */
function streamOf(json: unknown): ServerSentEvent[] | undefined {
  if (!isRecord(json)) return undefined;
  if (Array.isArray(json.choices) && isRecord(json.choices[0]) && isRecord(json.choices[0].message)) return completionToEvents(json);
  if (json.type === "message" && Array.isArray(json.content)) return messageToEvents(json);
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
