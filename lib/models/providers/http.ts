/**
 * The HTTP transport the real providers share: POST a JSON body and read the answer as an event stream (chat,
 * `postStream`) or as one JSON body (embeddings, `postJson`), with a per-attempt timeout, retries with exponential
 * backoff and jitter on 408/409/429/5xx and network failures
 * (honouring `Retry-After`), no retry on other answers, attempts counted, and error messages that summarize the
 * provider's answer without the API key. A stream that breaks after its first byte (cut, malformed, an error
 * event, or ended before its terminal event) is a new attempt under the same policy.
 * Redirects are not followed: a model API does not redirect its POSTs, and following one would send the key and
 * the conversation to a destination nobody checked (a tenant's URL is checked before the call, its redirects are not).
 */
import { ModelProviderError, type ModelProviderErrorCode } from "@/lib/models/provider";
import { isRecord, sleep } from "@/lib/models/providers/shared";
import { ServerSentEventDecoder, type ServerSentEvent } from "@/lib/models/providers/sse";

/** How hard to try. Every value is configurable so tests run fast. */
export type RetryPolicy = {
  /** Retries after the first attempt (so at most maxRetries + 1 attempts). */
  maxRetries: number;
  /** The first backoff; it doubles with each retry, then gets equal jitter (half fixed, half random). */
  baseDelayMs: number;
  /** Cap of the exponential backoff. */
  maxDelayMs: number;
  /** Cap of a server's `Retry-After` wait. */
  maxRetryAfterMs: number;
  /** Timeout of one attempt's wait for the answer's headers, then of every silence of its stream (no byte for that long). */
  timeoutMs: number;
};

/** 3 retries from 200 ms, backoff capped at 5 s, Retry-After capped at 10 s, 60 s of silence per attempt. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 10_000,
  timeoutMs: 60_000,
});

/** What `onRetry` hears before each backoff wait. */
export type RetryInfo = {
  /** The attempt that failed (1-based). */
  attempt: number;
  delayMs: number;
  status?: number;
  code: ModelProviderErrorCode;
};

/** Transport options of a real provider. */
export type HttpOptions = {
  policy?: Partial<RetryPolicy>;
  /** Called before each retry, e.g. to log or count retries. */
  onRetry?: (info: RetryInfo) => void;
  /** The `fetch` to send with (default the global one); a tenant provider's connects to its checked address only. */
  fetch?: typeof fetch;
};

/** A POST to a provider: where, what, and the key to keep out of every error message. */
type ProviderPost = {
  providerId: string;
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body: unknown;
  /** The API key, redacted from every error message. */
  secret: string;
  signal?: AbortSignal;
  options?: HttpOptions;
};

/** One streamed POST to a provider. */
export type StreamPost<T> = ProviderPost & {
  /** A fresh reader for each attempt (1-based), so the deltas it hears can carry the attempt's number. */
  reader: (attempt: number) => StreamReader<T>;
};

type Failure = { code: ModelProviderErrorCode; message: string; status?: number; retryable: boolean; retryAfterMs?: number };
type Outcome<T> = { ok: true; answer: T } | ({ ok: false } & Failure);

/**
 * Why an attempt's event stream failed after its first byte: a malformed event, an error event, an answer the
 * events do not make. Thrown by a `StreamReader`; `postStream` retries it when `retryable`, else fails the call.
 * The message does not name the provider (`postStream` adds it).
 */
export class StreamFailure extends Error {
  readonly code: ModelProviderErrorCode;
  readonly retryable: boolean;

  constructor(code: ModelProviderErrorCode, message: string, options: { retryable?: boolean } = {}) {
    super(message);
    this.name = "StreamFailure";
    this.code = code;
    this.retryable = options.retryable ?? true;
  }
}

/** Reads one attempt's events, in order, into an answer (a provider's wire format lives in its reader). */
export type StreamReader<T> = {
  /** The event that ends a complete stream (`[DONE]`, `message_stop`), named when a stream ends without it. */
  readonly terminal: string;
  /** Reads one event; true when it was the terminal one (the rest of the body is not read). Throws `StreamFailure`. */
  read(event: ServerSentEvent): boolean;
  /** The answer, after the terminal event; throws `StreamFailure` when the events do not make one. */
  answer(): T;
};

/**
 * POSTs `body` as JSON and reads the answer as server-sent events, through a new reader per attempt. A failure
 * before the first byte of the body (no connection, a timeout, 408/409/429/5xx) is retried; so is a stream that
 * breaks after it (cut or silent: provider-unavailable; malformed: provider-bad-response; an error event: the code
 * its reader gives), as a new attempt whose reader starts from nothing. A 2xx answer that is JSON rather than an
 * event stream fails at once (provider-bad-response): the server does not stream. Throws `ModelProviderError` when
 * the provider fails for good; rejects with the signal's reason as soon as the caller aborts (mid-body and during
 * backoff waits too).
 */
export async function postStream<T>(post: StreamPost<T>): Promise<{ answer: T; attempts: number }> {
  return withRetries(post, (policy, attempt) => streamOnce(post, policy, attempt));
}

/** What the retry loop needs of a post, streamed or not. */
type RetriedPost = { secret: string; signal?: AbortSignal; options?: HttpOptions };

/**
 * Makes attempts until one succeeds, one fails for good (not retryable) or the retries are used up, waiting the
 * backoff (or the server's Retry-After) between them. Throws `ModelProviderError` with the attempts made.
 */
async function withRetries<T>(post: RetriedPost, once: (policy: RetryPolicy, attempt: number) => Promise<Outcome<T>>): Promise<{ answer: T; attempts: number }> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...post.options?.policy };
  for (let attempt = 1; ; attempt++) {
    const outcome = await once(policy, attempt);
    if (outcome.ok) return { answer: outcome.answer, attempts: attempt };
    if (!outcome.retryable || attempt > policy.maxRetries) {
      const after = attempt > 1 ? ` (after ${attempt} attempts)` : "";
      throw new ModelProviderError(outcome.code, redact(`${outcome.message}${after}`, post.secret), { status: outcome.status, attempts: attempt });
    }
    const delayMs = backoffDelay(attempt, outcome.retryAfterMs, policy);
    post.options?.onRetry?.({ attempt, delayMs, status: outcome.status, code: outcome.code });
    await sleep(delayMs, post.signal);
  }
}

/** One POST whose answer is a single JSON body (an API that does not stream, such as `/v1/embeddings`). */
export type JsonPost<T> = ProviderPost & {
  /**
   * Reads a 2xx answer's parsed JSON into the answer; throws `StreamFailure` when it is not one (a non-retryable
   * failure fails the call at once, with the attempts made).
   */
  parse: (json: unknown) => T;
};

/**
 * POSTs `body` as JSON and reads a JSON answer, under the same policy as `postStream`: a failure before the answer
 * is read whole (no connection, a timeout, 408/409/429/5xx, a body that breaks off) is retried with backoff,
 * honouring `Retry-After`; other 4xx fail at once; a 2xx body that is not JSON, or that `parse` refuses, fails with
 * provider-bad-response. The timeout covers the wait for the headers and then for the whole body. Throws
 * `ModelProviderError`; rejects with the signal's reason as soon as the caller aborts.
 */
export async function postJson<T>(post: JsonPost<T>): Promise<{ answer: T; attempts: number }> {
  return withRetries(post, (policy) => jsonOnce(post, policy));
}

/** An attempt's own request: aborted when the caller aborts or when the attempt stays silent for `timeoutMs`. */
type Attempt = { controller: AbortController; timer: NodeJS.Timeout; isSilent: () => boolean; end: () => void };

function startAttempt(signal: AbortSignal | undefined, timeoutMs: number, silence: string): Attempt {
  signal?.throwIfAborted();
  const controller = new AbortController();
  let silent = false;
  const timer = setTimeout(() => {
    silent = true;
    controller.abort(new DOMException(`${silence} for ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    controller,
    timer,
    isSilent: () => silent,
    end: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Sends an attempt's POST: the response, or the failure of one that could not be reached or stayed silent. */
async function send(post: ProviderPost, attempt: Attempt, accept: string, timeoutMs: number): Promise<Response | Outcome<never>> {
  try {
    const headers = { "content-type": "application/json", accept, ...post.headers };
    return await (post.options?.fetch ?? fetch)(post.url, { method: "POST", headers, body: JSON.stringify(post.body), signal: attempt.controller.signal, redirect: "manual" });
  } catch (error) {
    if (post.signal?.aborted) throw post.signal.reason;
    const why = attempt.isSilent() ? `no answer within ${timeoutMs} ms` : `could not be reached (${networkCause(error)})`;
    return { ok: false, code: "provider-unavailable", message: `${post.providerId}: ${why}`, retryable: true };
  }
}

/** A response's whole body, or the failure of one that broke off or stayed silent. */
async function bodyText(post: ProviderPost, response: Response, attempt: Attempt, timeoutMs: number): Promise<string | Outcome<never>> {
  try {
    return await response.text();
  } catch (error) {
    if (post.signal?.aborted) throw post.signal.reason;
    const why = attempt.isSilent() ? `no answer within ${timeoutMs} ms` : `broke off (${networkCause(error)})`;
    return { ok: false, code: "provider-unavailable", message: `${post.providerId}: HTTP ${response.status}, and then the answer ${why}`, status: response.status, retryable: true };
  }
}

/** One attempt of a JSON post, with its own controller for the caller's abort and the timeout. */
async function jsonOnce<T>(post: JsonPost<T>, policy: RetryPolicy): Promise<Outcome<T>> {
  const attempt = startAttempt(post.signal, policy.timeoutMs, "no answer");
  const { providerId } = post;
  try {
    const response = await send(post, attempt, "application/json", policy.timeoutMs);
    if (!(response instanceof Response)) return response;
    const { status } = response;
    const text = await bodyText(post, response, attempt, policy.timeoutMs);
    if (typeof text !== "string") return text;
    if (!isSuccess(status)) return { ok: false, ...failureOf(providerId, response, text) };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, code: "provider-bad-response", message: `${providerId}: HTTP ${status} with a body that is not JSON${summarizeBody(text)}`, status, retryable: false };
    }
    try {
      return { ok: true, answer: post.parse(json) };
    } catch (error) {
      if (!(error instanceof StreamFailure)) throw error;
      return { ok: false, code: error.code, message: `${providerId}: ${error.message}`, status, retryable: error.retryable };
    }
  } finally {
    attempt.end();
  }
}

/**
 * One streamed attempt. Its own controller ends the request when the caller aborts or the attempt stays silent
 * for `timeoutMs` (before the answer's headers, then between chunks of the body); a pending read is cancelled at
 * once, so an abort mid-body rejects without waiting for the next byte.
 */
async function streamOnce<T>(post: StreamPost<T>, policy: RetryPolicy, attempt: number): Promise<Outcome<T>> {
  const control = startAttempt(post.signal, policy.timeoutMs, "no data");
  const { providerId } = post;
  try {
    const response = await send(post, control, "text/event-stream", policy.timeoutMs);
    if (!(response instanceof Response)) return response;
    const { status } = response;
    if (!isSuccess(status)) {
      const text = await bodyText(post, response, control, policy.timeoutMs);
      if (typeof text !== "string") return text;
      return { ok: false, ...failureOf(providerId, response, text) };
    }
    if (/\bjson\b/i.test(response.headers.get("content-type") ?? "")) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, code: "provider-bad-response", message: `${providerId}: HTTP ${status} with a JSON body instead of an event stream`, status, retryable: false };
    }
    control.timer.refresh();
    return await readStream(post, response, post.reader(attempt), { signal: control.controller.signal, onData: () => control.timer.refresh(), isSilent: control.isSilent, timeoutMs: policy.timeoutMs });
  } finally {
    control.end();
  }
}

/** What `readStream` needs of its attempt: the attempt's signal, the silence timer's restart and state. */
type StreamControl = { signal: AbortSignal; onData: () => void; isSilent: () => boolean; timeoutMs: number };

/** Reads a 2xx event-stream body through `reader` until its terminal event. */
async function readStream<T>(post: StreamPost<T>, response: Response, reader: StreamReader<T>, control: StreamControl): Promise<Outcome<T>> {
  const { providerId } = post;
  const { status } = response;
  const broken = (why: string): Outcome<T> => ({ ok: false, code: "provider-unavailable", message: `${providerId}: the stream ${why}`, status, retryable: true });
  if (!response.body) return broken("had no body");
  const body = response.body.getReader();
  // Cancelling settles a pending read at once: an abort or a silence does not wait for the next byte.
  const cancel = () => void body.cancel().catch(() => undefined);
  control.signal.addEventListener("abort", cancel, { once: true });
  const decoder = new ServerSentEventDecoder();
  let bytes = 0;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await body.read();
      } catch (error) {
        if (post.signal?.aborted) throw post.signal.reason;
        return broken(control.isSilent() ? `stopped: no data for ${control.timeoutMs} ms after ${bytes} bytes` : `broke off after ${bytes} bytes (${networkCause(error)})`);
      }
      if (post.signal?.aborted) throw post.signal.reason;
      if (control.isSilent()) return broken(`stopped: no data for ${control.timeoutMs} ms after ${bytes} bytes`);
      if (!chunk.done) {
        bytes += chunk.value.byteLength;
        control.onData();
      }
      for (const event of chunk.done ? decoder.end() : decoder.push(chunk.value)) {
        const isTerminal = reader.read(event);
        // The listener may have aborted the call: no event after that is read.
        if (post.signal?.aborted) throw post.signal.reason;
        if (!isTerminal) continue;
        const answer = reader.answer();
        drain(body);
        return { ok: true, answer };
      }
      if (chunk.done) return broken(`ended after ${bytes} bytes without ${reader.terminal}`);
    }
  } catch (error) {
    cancel();
    if (!(error instanceof StreamFailure)) throw error;
    return { ok: false, code: error.code, message: `${providerId}: ${error.message}`, status, retryable: error.retryable };
  } finally {
    control.signal.removeEventListener("abort", cancel);
  }
}

/** How long the rest of a body may take after its terminal event before the connection is dropped. */
const DRAIN_MS = 1_000;

/**
 * Reads what follows the terminal event (the end of the body, as a rule) in the background, so the connection can
 * be kept alive for the next call; a server that keeps the body open gets its connection cancelled.
 */
function drain(body: ReadableStreamDefaultReader<Uint8Array>): void {
  const timer = setTimeout(() => void body.cancel().catch(() => undefined), DRAIN_MS).unref();
  void (async () => {
    try {
      while (!(await body.read()).done);
    } catch {
      // The connection broke after the answer was complete: nothing is lost.
    } finally {
      clearTimeout(timer);
    }
  })();
}

const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** The failure a non-2xx answer means. */
function failureOf(providerId: string, response: Response, text: string): Failure {
  const { status } = response;
  if (status >= 300 && status < 400) return { code: "provider-request-failed", message: `${providerId}: HTTP ${status}, a redirect, which is not followed`, status, retryable: false };
  const message = `${providerId}: HTTP ${status}${summarizeBody(text)}`;
  if (status === 401 || status === 403) return { code: "provider-auth-failed", message, status, retryable: false };
  if (status === 429) return { code: "provider-rate-limited", message, status, retryable: true, retryAfterMs: retryAfterMs(response.headers) };
  if (status === 408 || status === 409 || status >= 500) return { code: "provider-unavailable", message, status, retryable: true, retryAfterMs: retryAfterMs(response.headers) };
  return { code: "provider-request-failed", message, status, retryable: false };
}

const MAX_SUMMARY = 300;

/** `: <the provider's error message>` from a JSON error body (OpenAI and Anthropic shapes) or the text, cut short; empty when blank. */
export function summarizeBody(text: string): string {
  let summary = text;
  try {
    const parsed: unknown = JSON.parse(text);
    const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : parsed;
    if (isRecord(error)) summary = [error.type, error.code, error.message].filter((part) => typeof part === "string" && part !== "").join(": ") || text;
  } catch {
    // Not JSON: the text itself.
  }
  summary = summary.replace(/\s+/g, " ").trim();
  if (summary === "") return "";
  return `: ${summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY)}…` : summary}`;
}

/**
 * `text` without the secret (when it is at least 4 characters — shorter "keys" such as `x` for a local server
 * are not secrets and would garble the message) and without anything shaped like a provider key (`sk-…`),
 * which providers echo partially in 401 answers.
 */
export function redact(text: string, secret: string): string {
  const withoutSecret = secret.length >= 4 ? text.split(secret).join("[redacted]") : text;
  return withoutSecret.replace(/sk-[A-Za-z0-9*_.-]+/g, "[redacted]");
}

/** The wait a `Retry-After` (seconds or HTTP date) or OpenAI's `retry-after-ms` header asks for, if any. */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The wait before retry number `attempt`: the server's Retry-After (capped) or exponential backoff with equal jitter. */
export function backoffDelay(attempt: number, serverAskedMs: number | undefined, policy: RetryPolicy, random: () => number = Math.random): number {
  if (serverAskedMs !== undefined) return Math.min(serverAskedMs, policy.maxRetryAfterMs);
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

/** A network failure's code (`ECONNREFUSED`, …) or message; fetch hides the cause under "fetch failed". */
function networkCause(error: unknown): string {
  const cause = error instanceof Error && isRecord(error.cause) ? error.cause : undefined;
  if (typeof cause?.code === "string") return cause.code;
  return error instanceof Error ? error.message : String(error);
}
