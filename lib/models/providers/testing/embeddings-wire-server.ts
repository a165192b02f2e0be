/**
 * A strict OpenAI `/v1/embeddings` wire server for provider tests, integration tests and benchmarks, on 127.0.0.1
 * (random port). It checks a request as the real API would — method and path (404), credentials (401), content type,
 * a JSON object body with a non-empty `model`, an `input` that is a non-empty string or a non-empty array of non-empty
 * strings, `encoding_format` "float" when present (this server answers no base64), `dimensions` a positive integer
 * when present, no other field (400) — and refuses a batch larger than `maxBatch` (400), so a provider's batching is
 * proven by the requests it makes. It answers the real shape (`{object: "list", data: [{object: "embedding", index,
 * embedding}], model, usage: {prompt_tokens, total_tokens}}`) with deterministic vectors (`wireEmbedding`), of the
 * request's `dimensions` or the server's. Given requests can fail instead (a status such as 429 with Retry-After),
 * answer vectors of another length, answer the data out of order, or drop one embedding. Errors come in OpenAI's shape.
 * Every request is recorded.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { isRecord } from "@/lib/models/providers/shared";
import { listening, type WireTestServer } from "@/lib/models/providers/testing/wire-servers";

/** How a given request is answered instead of with its plain vectors. */
export type EmbeddingsFault =
  /** This status, with these headers and this JSON (default: OpenAI's error shape for the status). */
  | { status: number; headers?: Record<string, string>; json?: unknown }
  /** Vectors of this length instead (a dimension mismatch). */
  | { dimensions: number }
  /** One embedding fewer than the inputs. */
  | { dropOne: true };

/** What an embeddings server answers. Request numbers count every request the server received, from 1. */
export type EmbeddingsServerOptions = {
  /** The API key requests must carry (`Authorization: Bearer …`); without one, any or none is accepted. */
  apiKey?: string;
  /** The vectors' length when the request does not ask for one (default 8). */
  dimensions?: number;
  /** The most inputs one request may carry (default 2048, OpenAI's); a larger batch is refused with 400. */
  maxBatch?: number;
  /** The data in reverse order (the indexes stay right), so that a client must reorder by `index`. */
  reversed?: boolean;
  /** The `model` the answer names (default: the request's). */
  answerModel?: string;
  /** Faults by request number. */
  faults?: Record<number, EmbeddingsFault>;
};

/** A request the server received, and how it was answered. */
export type EmbeddingsRequestRecord = {
  number: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
  /** The inputs, as an array, when the request was well formed. */
  inputs?: string[];
  status?: number;
  /** Why the request was refused, when it was. */
  problem?: string;
};

/** A running embeddings server (its base URL: `<url>/v1`). */
export type EmbeddingsServer = WireTestServer<EmbeddingsRequestRecord, EmbeddingsServerOptions>;

/** The fields OpenAI's embeddings endpoint accepts. */
const FIELDS = new Set(["model", "input", "encoding_format", "dimensions", "user"]);

/** The server's deterministic vector for `text`: `dimensions` numbers in [-1, 1) from a hash of the text (not normalized). */
export function wireEmbedding(text: string, dimensions: number): number[] {
  let hash = 0x811c_9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x0100_0193);
  return Array.from({ length: dimensions }, (_, i) => {
    hash = Math.imul(hash ^ (i + 1), 0x0100_0193) >>> 0;
    return (hash % 2000) / 1000 - 1;
  });
}

/** The tokens the server reports for `inputs`: one per 4 characters, at least one per input. */
export const wireTokens = (inputs: readonly string[]): number => inputs.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);

/** What is wrong with a request body, or its inputs. */
function check(headers: IncomingHttpHeaders, body: unknown, options: EmbeddingsServerOptions): { status: number; message: string; param?: string } | { inputs: string[] } {
  if (options.apiKey !== undefined && headers.authorization !== `Bearer ${options.apiKey}`) return { status: 401, message: "Incorrect API key provided." };
  if (!/^application\/json\s*(;|$)/i.test(headers["content-type"] ?? "")) return { status: 400, message: "The content type must be application/json." };
  if (!isRecord(body)) return { status: 400, message: "The body is not a JSON object." };
  const unknown = Object.keys(body).find((key) => !FIELDS.has(key));
  if (unknown !== undefined) return { status: 400, message: `Unrecognized request argument supplied: ${unknown}`, param: unknown };
  if (typeof body.model !== "string" || body.model === "") return { status: 400, message: "you must provide a model parameter", param: "model" };
  const inputs = typeof body.input === "string" ? [body.input] : body.input;
  if (!Array.isArray(inputs) || inputs.length === 0) return { status: 400, message: "'input' must be a non-empty string or a non-empty array of strings", param: "input" };
  const bad = inputs.findIndex((text) => typeof text !== "string" || text === "");
  if (bad >= 0) return { status: 400, message: `'$.input[${bad}]' is invalid: an input must be a non-empty string`, param: "input" };
  const maxBatch = options.maxBatch ?? 2048;
  if (inputs.length > maxBatch) return { status: 400, message: `'$.input' is too long: ${inputs.length} inputs, at most ${maxBatch} per request`, param: "input" };
  if (body.encoding_format !== undefined && body.encoding_format !== "float") return { status: 400, message: `this server answers encoding_format "float" only, not ${JSON.stringify(body.encoding_format)}`, param: "encoding_format" };
  if (body.dimensions !== undefined && !(Number.isInteger(body.dimensions) && (body.dimensions as number) > 0)) return { status: 400, message: "'dimensions' must be a positive integer", param: "dimensions" };
  return { inputs: inputs as string[] };
}

const errorBody = (status: number, message: string, param: string | null = null) => ({
  error: {
    message,
    type: status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error",
    param,
    code: status === 401 ? "invalid_api_key" : status === 429 ? "rate_limit_exceeded" : status === 404 ? "unknown_url" : null,
  },
});

const DEFAULT_STATUS_MESSAGES: Record<number, string> = { 429: "Rate limit reached for requests", 500: "The server had an error", 503: "Service unavailable" };

/** Starts a strict OpenAI embeddings server (`POST /v1/embeddings`). */
export async function startEmbeddingsServer(initial: EmbeddingsServerOptions = {}): Promise<EmbeddingsServer> {
  let options = { ...initial };
  const requests: EmbeddingsRequestRecord[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    const record: EmbeddingsRequestRecord = { number: requests.length + 1, method: req.method ?? "", path: req.url ?? "", headers: req.headers, rawBody, body: parseJson(rawBody) };
    requests.push(record);
    const current = options;
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(json));
    };
    if (record.method !== "POST" || record.path !== "/v1/embeddings") {
      record.problem = `no route for ${record.method} ${record.path}`;
      return answer(404, errorBody(404, record.problem));
    }
    const checked = check(req.headers, record.body, current);
    if ("status" in checked) {
      record.problem = checked.message;
      return answer(checked.status, errorBody(checked.status, checked.message, checked.param ?? null));
    }
    record.inputs = checked.inputs;
    const fault = current.faults?.[record.number];
    if (fault && "status" in fault) return answer(fault.status, fault.json ?? errorBody(fault.status, DEFAULT_STATUS_MESSAGES[fault.status] ?? `HTTP ${fault.status}`), fault.headers);
    const body = record.body as Record<string, unknown>;
    const dimensions = fault && "dimensions" in fault ? fault.dimensions : typeof body.dimensions === "number" ? body.dimensions : (current.dimensions ?? 8);
    let data = checked.inputs.map((text, index) => ({ object: "embedding", index, embedding: wireEmbedding(text, dimensions) }));
    if (fault && "dropOne" in fault) data = data.slice(0, -1);
    if (current.reversed) data = data.reverse();
    const tokens = wireTokens(checked.inputs);
    answer(200, { object: "list", data, model: current.answerModel ?? body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  });
  return listening(server, (url) => `${url}/v1`, requests, (changes: Partial<EmbeddingsServerOptions>) => {
    options = { ...options, ...changes };
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
