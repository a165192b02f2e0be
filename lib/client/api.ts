/**
 * The console's one way to call the API: JSON over `/v1` with the session cookie. An error envelope
 * (`{"error":{"code","message","details","requestId"}}`) becomes a typed {@link ApiError}.
 */
export type Issue = { path: string; message: string };

/** A page of a list: the shape every list route returns. */
export type Page<T> = { data: T[]; hasMore: boolean; nextCursor?: string };

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** `details.issues` of the envelope: each problem with the JSON pointer of the field it names. */
  readonly issues: Issue[];
  readonly requestId: string | null;
  readonly details: unknown;

  constructor(options: { status: number; code: string; message: string; issues?: Issue[]; requestId?: string | null; details?: unknown }) {
    super(options.message);
    this.name = "ApiError";
    this.status = options.status;
    this.code = options.code;
    this.issues = options.issues ?? [];
    this.requestId = options.requestId ?? null;
    this.details = options.details;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export type QueryValue = string | number | boolean | undefined | null;

export type ApiFetchOptions = {
  method?: string;
  body?: unknown;
  query?: Record<string, QueryValue>;
  idempotencyKey?: string;
  signal?: AbortSignal;
};

/** `/v1/tools` and `/tools` name the same endpoint. */
export function apiUrl(path: string, query?: Record<string, QueryValue>): string {
  const base = path.startsWith("/v1/") || path === "/v1" ? path : `/v1${path.startsWith("/") ? "" : "/"}${path}`;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  const search = params.toString();
  return search ? `${base}${base.includes("?") ? "&" : "?"}${search}` : base;
}

/** JSON over /v1 with the session cookie; throws ApiError built from the error envelope (or a network error as code "network-error"). */
export async function apiFetch<T>(path: string, options: ApiFetchOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.idempotencyKey) headers["Idempotency-Key"] = options.idempotencyKey;
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options.query), {
      method: options.method ?? (options.body !== undefined ? "POST" : "GET"),
      headers,
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
      credentials: "same-origin",
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error)?.name === "AbortError") throw error;
    throw new ApiError({ status: 0, code: "network-error", message: "the server could not be reached; check your connection and try again" });
  }
  const requestId = response.headers.get("x-request-id");
  const text = await response.text();
  let payload: unknown = undefined;
  if (text) {
    try {
      payload = JSON.parse(text);
    } catch {
      payload = undefined;
    }
  }
  if (!response.ok) throw toApiError(response.status, payload, requestId);
  if (text && payload === undefined) throw new ApiError({ status: response.status, code: "unexpected-response", message: "the server answered with something that is not JSON", requestId });
  return payload as T;
}

/** Builds the ApiError for an error response (the envelope when there is one). */
export function toApiError(status: number, payload: unknown, requestId: string | null = null): ApiError {
  const envelope = (payload as { error?: { code?: unknown; message?: unknown; details?: unknown; requestId?: unknown } } | undefined)?.error;
  if (!envelope || typeof envelope.code !== "string") {
    return new ApiError({ status, code: "unexpected-response", message: `the server answered ${status} without an error description`, requestId });
  }
  const details = envelope.details;
  const rawIssues = (details as { issues?: unknown } | undefined)?.issues;
  const issues = Array.isArray(rawIssues)
    ? rawIssues.filter((issue): issue is Issue => typeof issue?.path === "string" && typeof issue?.message === "string").map(({ path, message }) => ({ path, message }))
    : [];
  return new ApiError({
    status,
    code: envelope.code,
    message: typeof envelope.message === "string" ? envelope.message : envelope.code,
    issues,
    requestId: typeof envelope.requestId === "string" ? envelope.requestId : requestId,
    details,
  });
}
