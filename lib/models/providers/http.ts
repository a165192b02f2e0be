/**
 * The HTTP transport the real providers share: POST a JSON body, with a per-attempt timeout, retries with
 * exponential backoff and jitter on 408/409/429/5xx and network failures (honouring `Retry-After`), no retry on
 * other answers, attempts counted, and error messages that summarize the provider's answer without the API key.
 * Redirects are not followed: a model API does not redirect its POSTs, and following one would send the key and
 * the conversation to a destination nobody checked (a tenant's URL is checked before the call, its redirects are not).
 */
import { ModelProviderError, type ModelProviderErrorCode } from "@/lib/models/provider";
import { isRecord } from "@/lib/models/providers/shared";

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
  /** Timeout of one attempt (connect, answer and body). */
  timeoutMs: number;
};

/** 3 retries from 200 ms, backoff capped at 5 s, Retry-After capped at 10 s, 60 s per attempt. */
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

/** One JSON POST to a provider. */
export type JsonPost = {
  providerId: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** The API key, redacted from every error message. */
  secret: string;
  signal?: AbortSignal;
  options?: HttpOptions;
};

type Failure = { code: ModelProviderErrorCode; message: string; status?: number; retryable: boolean; retryAfterMs?: number };
type Outcome = { ok: true; body: unknown } | ({ ok: false } & Failure);

/**
 * POSTs `body` as JSON and returns the parsed JSON answer with the number of attempts made.
 * Throws `ModelProviderError` when the provider fails for good; rejects with the signal's reason when the
 * caller aborts (also during a backoff wait).
 */
export async function postJson(post: JsonPost): Promise<{ body: unknown; attempts: number }> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...post.options?.policy };
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(post, policy);
    if (outcome.ok) return { body: outcome.body, attempts: attempt };
    if (!outcome.retryable || attempt > policy.maxRetries) {
      const after = attempt > 1 ? ` (after ${attempt} attempts)` : "";
      throw new ModelProviderError(outcome.code, redact(`${outcome.message}${after}`, post.secret), { status: outcome.status, attempts: attempt });
    }
    const delayMs = backoffDelay(attempt, outcome.retryAfterMs, policy);
    post.options?.onRetry?.({ attempt, delayMs, status: outcome.status, code: outcome.code });
    await sleep(delayMs, post.signal);
  }
}

async function attemptOnce(post: JsonPost, policy: RetryPolicy): Promise<Outcome> {
  post.signal?.throwIfAborted();
  const timeout = AbortSignal.timeout(policy.timeoutMs);
  const signal = post.signal ? AbortSignal.any([post.signal, timeout]) : timeout;
  let response: Response;
  let text: string;
  try {
    response = await (post.options?.fetch ?? fetch)(post.url, { method: "POST", headers: { "content-type": "application/json", ...post.headers }, body: JSON.stringify(post.body), signal, redirect: "manual" });
    text = await response.text();
  } catch (error) {
    if (post.signal?.aborted) throw post.signal.reason;
    const why = timeout.aborted ? `no answer within ${policy.timeoutMs} ms` : `could not be reached (${networkCause(error)})`;
    return { ok: false, code: "provider-unavailable", message: `${post.providerId}: ${why}`, retryable: true };
  }
  return classify(post.providerId, response, text);
}

/** Turns an HTTP answer into a parsed body or a failure (retryable or not). */
function classify(providerId: string, response: Response, text: string): Outcome {
  const { status } = response;
  if (status >= 200 && status < 300) {
    try {
      return { ok: true, body: JSON.parse(text) };
    } catch {
      return { ok: false, code: "provider-bad-response", message: `${providerId}: HTTP ${status} with a body that is not JSON`, status, retryable: false };
    }
  }
  if (status >= 300 && status < 400) return { ok: false, code: "provider-request-failed", message: `${providerId}: HTTP ${status}, a redirect, which is not followed`, status, retryable: false };
  const message = `${providerId}: HTTP ${status}${summarizeBody(text)}`;
  if (status === 401 || status === 403) return { ok: false, code: "provider-auth-failed", message, status, retryable: false };
  if (status === 429) return { ok: false, code: "provider-rate-limited", message, status, retryable: true, retryAfterMs: retryAfterMs(response.headers) };
  if (status === 408 || status === 409 || status >= 500) return { ok: false, code: "provider-unavailable", message, status, retryable: true, retryAfterMs: retryAfterMs(response.headers) };
  return { ok: false, code: "provider-request-failed", message, status, retryable: false };
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

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A network failure's code (`ECONNREFUSED`, …) or message; fetch hides the cause under "fetch failed". */
function networkCause(error: unknown): string {
  const cause = error instanceof Error && isRecord(error.cause) ? error.cause : undefined;
  if (typeof cause?.code === "string") return cause.code;
  return error instanceof Error ? error.message : String(error);
}
