/**
 * The context a pack handler receives: `export default async function (input, context) { … return output; }`.
 * One interface for every sandbox level (none, context-isolated, strict); in a worker or child process the same
 * members are proxies to the server, which applies the tool's rules (secrets it declares, its network policy,
 * redaction of logs).
 */

/** A log line a handler wrote, as journaled (`handler-logged`), with every resolved secret value redacted. */
export type HandlerLogLine = { level: "debug" | "info" | "warn" | "error"; message: string; at: string };

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
  /** `needsSpec.env`: each entry's `value` (or `default`) as a string. */
  readonly env: Readonly<Record<string, string>>;
  /** `needsSpec.config`: each entry's `value` (or `default`), any JSON value. */
  readonly config: Readonly<Record<string, unknown>>;
  /** `fetch` under the tool's `network` policy (refusals throw an error whose `code` is `network-denied`). */
  fetch(url: string | URL, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Response>;
  /** Lines for the run's journal (redacted). */
  readonly log: HandlerLog;
  /** Accounts at other apps the tool declares in `needsSpec.connections`, by its names for them, resolved for this call. */
  readonly connections: Readonly<Record<string, HandlerConnection>>;
  /** Makes the run wait for another system's answer (for tools with `pauses: true`); not available yet: throws. */
  pause(): never;
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
  | "artifact-kind-unsupported"
  | "network-denied"
  | "host-unresolvable";
