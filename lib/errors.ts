/**
 * The one table of error codes. `code` is the stable contract of the API; the status is derived from it
 * here and nowhere else. Services and the kernel throw `new AppError(code, message, details)`; only the
 * route wrapper turns it into HTTP.
 */
export const errorStatus = {
  /** The request body is not JSON, a required value is missing or malformed, an id is malformed, or a projectId is not the caller's. */
  "bad-input": 400,
  /** A request field that the operation does not define. */
  "unknown-field": 400,
  /** A manifest or definition breaks its schema or a rule; `details.issues` lists each problem with a JSON pointer. */
  "validation-failed": 400,
  /** No credential on a route that needs one. */
  "auth-missing": 401,
  /** A credential that is malformed or unknown. */
  "auth-invalid": 401,
  /** An API key that was revoked. */
  "auth-revoked": 401,
  /** The caller is known but its role does not allow the operation. */
  "permission-denied": 403,
  /** A cookie-authenticated unsafe request from an origin that is not ours. */
  "csrf-origin-mismatch": 403,
  /** A request to the MCP server (/v1/mcp) whose Origin header is neither ours nor in KINDGI_ALLOWED_ORIGINS (DNS rebinding). */
  "origin-not-allowed": 403,
  "host-not-allowed": 403,
  /** No such resource for this caller (another tenant's resources are reported the same way). */
  "not-found": 404,
  "run-failed": 422,
  "model-not-found": 404,
  /** The route exists but not with this method. */
  "method-not-allowed": 405,
  /** The request's `Accept` does not include what the route answers with (the MCP server needs JSON and SSE). */
  "not-acceptable": 406,
  /** The request's `Content-Type` is not one the route reads (the MCP server reads JSON). */
  "unsupported-media-type": 415,
  /** The same tool id and version are registered already. */
  "tool-already-registered": 409,
  /** The tool id lives in another project of the tenant. */
  "tool-project-mismatch": 409,
  /** The tool version (or, asking for the latest, every version) is unregistered: readable, not invocable until reinstated. */
  "tool-version-unregistered": 409,
  /** Another MCP endpoint of the tenant has that name (endpoint names prefix tool ids, which are unique in the tenant). */
  "mcp-endpoint-already-registered": 409,
  /** A stdio MCP endpoint would start a process on the server's host, and the server does not allow it (KINDGI_MCP_STDIO=allow). */
  "mcp-stdio-disabled": 403,
  /** An MCP endpoint URL whose address the network rules refuse (loopback and private ones unless KINDGI_MCP_ALLOW_PRIVATE_URLS=1). */
  "mcp-endpoint-refused": 403,
  /** Code run for a tool needs a bubblewrap sandbox and this server cannot make one (no bwrap, no user namespaces); it never runs unconfined. */
  "sandbox-unavailable": 503,
  /** The MCP server could not be started, reached or listed; `message` says why. */
  "mcp-connection-failed": 502,
  /** The same agent id and version are registered already. */
  "agent-already-registered": 409,
  /** The agent id lives in another project of the tenant. */
  "agent-project-mismatch": 409,
  /** The same guardrail id and version are registered already. */
  "guardrail-already-registered": 409,
  /** The guardrail id lives in another project of the tenant. */
  "guardrail-project-mismatch": 409,
  /** A model provider with that id is configured already (in the tenant or by the environment). */
  "provider-already-registered": 409,
  /** The conversation is pinned to another version of the agent than the run asks for. */
  "agent-version-mismatch": 409,
  /** The conversation was closed (by request or after inactivity) and takes no more turns. */
  "conversation-closed": 409,
  /** The approval was already decided differently (the same decision again answers 200 with its state). */
  "approval-already-decided": 409,
  /** The wait token expired, or its call was withdrawn or answered without pausing: it takes no answer. */
  "wait-not-pending": 409,
  /** The run has already completed, failed or been cancelled. */
  "run-already-terminal": 409,
  /** A project with that name exists in the tenant. */
  "project-name-taken": 409,
  /** A toolset with that name exists in the project (names are unique per project). */
  "toolset-name-taken": 409,
  /** A person with that email exists already (email addresses are unique across the server). */
  "member-email-taken": 409,
  /** The Idempotency-Key was used before with a different body. */
  "idempotency-key-body-mismatch": 409,
  /** The first request with this Idempotency-Key is still running; retry after `Retry-After` seconds. */
  "idempotency-key-in-flight": 409,
  /** The first response carried a secret (a new API key) and is never replayed. */
  "idempotency-key-replay-withheld": 409,
  /** The request was not received in time (answered by the HTTP front, scripts/http-edge.mjs). */
  "request-timeout": 408,
  /** The request body is larger than the API accepts. */
  "payload-too-large": 413,
  /** The request headers are larger than the server accepts (answered by the HTTP front, scripts/http-edge.mjs). */
  "headers-too-large": 431,
  /** A tool range matches no active registered version. */
  "tool-version-unresolvable": 422,
  /** A secret a tool or provider names does not exist in the tenant. */
  "secret-not-found": 404,
  /** Secrets cannot be stored or read: no usable KINDGI_SECRETS_KEY. */
  "secrets-unavailable": 503,
  /** The schedule or webhook was unregistered: it cannot be paused, resumed or delivered to any more. */
  "trigger-unregistered": 409,
  /** A delivery to a paused webhook: nothing is started (the sender should retry after the webhook is resumed). */
  "webhook-paused": 409,
  /** A webhook delivery whose Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature) does not verify. */
  "webhook-signature-invalid": 401,
  /** A webhook delivery signed more than 5 minutes before or after the server's clock (the replay window). */
  "webhook-timestamp-out-of-window": 401,
  /** A webhook delivery whose webhook-id was accepted before: a replay, nothing is started again. */
  "webhook-replayed": 409,
  /** A tool call needs a connection (`needsSpec.connections` or `authorization.kind: "connection"`) that is not linked; nothing was sent. */
  "connection-missing": 422,
  /** The linked connection lacks a permission the tool needs; nothing was sent. */
  "connection-permission-missing": 422,
  /** A notification endpoint URL the network rules refuse (loopback, private and metadata addresses unless allowed). */
  "notification-endpoint-refused": 403,
  /** An unexpected failure; the details stay in the server log under the request id. */
  "internal-server-error": 500,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;

export type Issue = { path: string; message: string };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** A 404 that says nothing about whether the resource exists in another tenant. */
export function notFound(what: string, id: string): AppError {
  return new AppError("not-found", `${what} ${JSON.stringify(id)} was not found`, { id });
}
