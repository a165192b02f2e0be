/**
 * The context a pack handler receives: `export default async function (input, context) { … return output; }`.
 * One interface for every sandbox level (none, context-isolated, strict); in a sandboxed child process the same
 * members are proxies to the server, which applies the tool's rules (secrets it declares, its network policy,
 * redaction of logs).
 */

/** A log line a handler wrote, as journaled (`handler-logged`), with every resolved secret value redacted. */
export type HandlerLogLine = { level: "debug" | "info" | "warn" | "error"; message: string; at: string };

/** One `context.progress(…)` of a handler, as the server relays it. */
export type HandlerProgress = { progress: number; total?: number; message?: string };

/** A `context.progress` argument list as a progress update, or null when `progress` is no finite number. */
export function progressOf(progress: unknown, total?: unknown, message?: unknown): HandlerProgress | null {
  if (typeof progress !== "number" || !Number.isFinite(progress)) return null;
  return {
    progress,
    ...(typeof total === "number" && Number.isFinite(total) ? { total } : {}),
    ...(typeof message === "string" ? { message: message.slice(0, 1024) } : {}),
  };
}

/** `context.log(message, fields?)` is `info`; the other levels are members. */
export interface HandlerLog {
  (message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A connection as a handler receives it: the app, the permissions it was granted and the access token for this call. */
export type HandlerConnection = { app: string; permissions: string[]; owner: "person" | "company"; accessToken: string };

export interface HandlerContext {
  /** The call's idempotency key: the same value an HTTP tool sends as `Idempotency-Key`, stable across a resent call. */
  readonly idempotencyKey: string;
  /** Aborted when the run's budget runs out or the run is cancelled; pass it on to what the handler waits for. */
  readonly signal: AbortSignal;
  /** The value of a secret the tool declares in `needsSpec.secrets` (stored under the entry's `name`, else its key). */
  resolveSecret(name: string): Promise<string>;
  /**
   * `needsSpec.env`: each entry's `value` (or `default`) as a string; and each `needsSpec.secrets` entry with an
   * `envName`, resolved before the call, under that name (redacted like every resolved secret).
   */
  readonly env: Readonly<Record<string, string>>;
  /** `needsSpec.config`: each entry's `value` (or `default`), any JSON value. */
  readonly config: Readonly<Record<string, unknown>>;
  /** `fetch` under the tool's `network` policy (refusals throw an error whose `code` is `network-denied`). */
  fetch(url: string | URL, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Response>;
  /** Lines for the run's journal (redacted); heard live by an MCP client that called the tool. */
  readonly log: HandlerLog;
  /**
   * How far the call is (`progress` of `total`, both numbers; `message` redacted): not journaled, heard live by
   * whoever waits for the call (an MCP client that asked for progress gets `notifications/progress`).
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * The `needs` slots by name (lib/tools/handler/needs.ts): `tenant`, `project`, `run`, `conversation` as `{id}`,
   * `memory:<type>` as a reader (`await context.needs["memory:facts"].search(query?, {limit?})`). An optional slot
   * the run cannot fill is absent.
   */
  readonly needs: Readonly<Record<string, unknown>>;
  /** Accounts at other apps the tool declares in `needsSpec.connections`, by its names for them, resolved for this call. */
  readonly connections: Readonly<Record<string, HandlerConnection>>;
  /**
   * For a tool with `pauses: true`: the call's wait token and completion link. Hand them to the other system and
   * answer with the returned value (`return context.pause()`): the run waits — 24 h by default, `timeoutMs` up to
   * 24 days — and what the system posts to the link (`POST <url>` with `{"token", "output"}`), valid against the
   * tool's `output`, becomes the call's result. Throws (code `pause-unavailable`) for a tool that cannot pause.
   */
  pause(options?: { timeoutMs?: number }): HandlerPause;
}

/** What `context.pause()` returns: answer with it. */
export type HandlerPause = { "kindgi:pause": string; waitId: string; token: string; url: string; expiresAt: string };

/** The wait a pausing call was given (passed to every sandbox level as plain data). */
export type PauseData = { waitId: string; token: string; url: string; expiresAt: string };

const MAX_PAUSE_MS = 24 * 24 * 60 * 60 * 1000;

/** `context.pause` over `data` (null: the tool cannot pause). */
export function pauseOf(data: PauseData | null | undefined): (options?: { timeoutMs?: number }) => HandlerPause {
  return (options) => {
    if (!data) throw Object.assign(new Error("this tool cannot pause: only a pack handler tool with pauses: true can"), { code: "pause-unavailable" });
    const timeoutMs = options?.timeoutMs;
    const expiresAt = typeof timeoutMs === "number" && Number.isFinite(timeoutMs) && timeoutMs > 0 ? new Date(Date.now() + Math.min(timeoutMs, MAX_PAUSE_MS)).toISOString() : data.expiresAt;
    return { "kindgi:pause": data.waitId, waitId: data.waitId, token: data.token, url: data.url, expiresAt };
  };
}

/** Failure reasons of a handler call (`tool-call-completed` error `reason`, and the run's failure `details.reason`). */
export type HandlerFailureReason =
  | "handler-error"
  | "handler-load-failed"
  | "handler-memory-exceeded"
  | "handler-cpu-exceeded"
  | "handler-permission-denied"
  | "handler-crashed"
  | "handler-cancelled"
  /** A required `needs` slot or an `envName` secret the runtime could not provide: the handler did not run. */
  | "need-unavailable"
  | "network-denied"
  | "host-unresolvable"
  | "sandbox-unavailable";
