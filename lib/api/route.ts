import { randomUUID, timingSafeEqual } from "node:crypto";
import { AppError, isAppError } from "@/lib/errors";
import type { Operation } from "@/lib/api/operation";
import { canonicalJson } from "@/lib/json";
import { MAX_BODY_BYTES } from "@/lib/api/limits";
import { type ApiResult, jsonResponse, serialize } from "@/lib/api/respond";
import { publicOrigin } from "@/lib/api/public-origin";
import { inspectBody, validateBody, validateParams, validateQuery } from "@/lib/api/request-validation";
import { claimIdempotencyKey, completeIdempotencyKey, hashRequest, releaseIdempotencyKey, validateIdempotencyKey, type IdempotencyScope } from "@/lib/services/idempotency";
import type { Actor } from "@/lib/services/actor";
import { authenticateApiKey, authenticateSession, sessionTokenFromCookieHeader } from "@/lib/services/authenticate";
import { asOneRequest } from "@/lib/services/tenant-generation";
import { addLogContext, log, withLogContext } from "@/lib/log";


export type HandlerContext<A> = {
  request: Request;
  requestId: string;
  actor: A;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** The request body's text exactly as received (a signed webhook delivery is verified on it); undefined for GET. */
  rawBody: string | undefined;
};

type ActorOf<O extends Operation> = O["auth"] extends "key" ? Actor : null;
type NextContext = { params: Promise<Record<string, string | string[]>> };

/**
 * The one route wrapper of /v1: request id → auth → params, query, body → idempotency → handler → error mapping.
 * Handlers return data; they never build an error body. What is logged while serving carries the request id and, once
 * the caller is known, its tenant id (lib/log.ts).
 */
export function route<O extends Operation>(operation: O, handler: (context: HandlerContext<ActorOf<O>>) => Promise<ApiResult | Response>) {
  // The cached reads of one request (its key, then what the handler reads) share one check of the caches' freshness.
  return (request: Request, context: NextContext): Promise<Response> => {
    const requestId = requestIdOf(request);
    return withLogContext({ requestId }, () => asOneRequest(() => serve(request, context, requestId)));
  };
  async function serve(request: Request, context: NextContext, requestId: string): Promise<Response> {
    try {
      if (operation.sameOriginOnly && !isAllowedHost(request))
        throw new AppError("host-not-allowed", `${JSON.stringify(requestHost(request))} is not a host this server answers ${new URL(request.url).pathname} for (DNS rebinding); allowed are localhost, 127.0.0.1, [::1], the host of KINDGI_PUBLIC_URL and those in KINDGI_ALLOWED_HOSTS or KINDGI_ALLOWED_ORIGINS`);
      if (operation.sameOriginOnly && request.headers.has("origin") && !isAllowedOrigin(request))
        throw new AppError("origin-not-allowed", `${JSON.stringify(request.headers.get("origin"))} is not an allowed origin for ${new URL(request.url).pathname}; allowed are this server's own origin and KINDGI_ALLOWED_ORIGINS`);
      const actor = (await authenticate(operation, request)) as ActorOf<O>;
      if (actor) addLogContext({ tenantId: (actor as Actor).tenantId });
      const params = operation.params ? validateParams(operation, pathParams(await context?.params)) : NO_PARAMS;
      // A request without a query string has nothing to check (no query parameter is required).
      const query = request.url.includes("?") ? validateQuery(operation, new URL(request.url).searchParams) : {};
      const { body, text: rawBody } = request.method === "GET" || request.method === "HEAD" ? NO_BODY : await readBody(operation, request);
      const run = () => handler({ request, requestId, actor, params, query, body: (body ?? {}) as Record<string, unknown>, rawBody });
      const idempotencyKey = operation.idempotent && actor ? validateIdempotencyKey(request.headers.get("idempotency-key")) : null;
      if (!idempotencyKey || !actor) return toResponse(await run(), requestId);

      const scope: IdempotencyScope = { tenantId: (actor as Actor).tenantId, callerId: (actor as Actor).callerId, method: operation.method, path: new URL(request.url).pathname, key: idempotencyKey };
      const claim = await claimIdempotencyKey(scope, hashRequest(canonicalJson(body ?? null)));
      if ("replay" in claim) return jsonResponse(claim.replay.status, claim.replay.body, requestId, { "X-Idempotent-Replay": "true" });
      let result: ApiResult | Response;
      try {
        result = await run();
      } catch (error) {
        await releaseIdempotencyKey(scope).catch(() => {});
        throw error;
      }
      if (result instanceof Response || result.status >= 400) {
        await releaseIdempotencyKey(scope);
        return toResponse(result, requestId);
      }
      const text = serialize(result);
      await completeIdempotencyKey(scope, { status: result.status, body: text }, Boolean(result.containsSecret));
      if (result.response) return toResponse(result.response, requestId);
      return jsonResponse(result.status, text, requestId, result.headers);
    } catch (error) {
      const response = errorResponse(error, requestId, operation.errorShape);
      if (response.status === 401 && operation.resourceMetadataPath) response.headers.set("WWW-Authenticate", `Bearer resource_metadata="${publicOrigin(request)}${operation.resourceMetadataPath}"`);
      return response;
    }
  }
}

/** A request id the caller sent (X-Request-Id) when it is a sane token, else a new one. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id")?.trim();
  return given && REQUEST_ID.test(given) ? given : randomUUID();
}
/** Up to 128 letters, digits and `.`, `_`, `:`, `-` (a UUID, a proxy's trace id). */
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_BODY = Object.freeze({ body: undefined, text: undefined });

/** Next.js's path parameters as strings (a catch-all's segments joined with `/`). */
function pathParams(raw: Record<string, string | string[]> | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) params[name] = Array.isArray(value) ? value.join("/") : value;
  return params;
}

function toResponse(result: ApiResult | Response, requestId: string): Response {
  if (!(result instanceof Response) && result.response) result = result.response;
  if (result instanceof Response) {
    result.headers.set("X-Request-Id", requestId);
    if (!result.headers.has("Cache-Control")) result.headers.set("Cache-Control", "no-store");
    return result;
  }
  return jsonResponse(result.status, serialize(result), requestId, result.headers);
}

/** The error envelope; an unexpected exception becomes a 500 whose details stay in the server log. */
export function errorResponse(error: unknown, requestId: string, shape?: "openai"): Response {
  const appError = isAppError(error) ? error : null;
  if (!appError) log.error("a request failed unexpectedly", { requestId, err: error });
  const envelope = appError
    ? { error: { code: appError.code, message: appError.message, ...(appError.details ? { details: appError.details } : {}), requestId } }
    : { error: { code: "internal-server-error", message: `unexpected error; the server log has it under request id ${requestId}`, requestId } };
  const status = appError ? appError.status : 500;
  const body = shape === "openai" ? { error: { ...envelope.error, ...openAiFields(status, appError) } } : envelope;
  return jsonResponse(status, JSON.stringify(body), requestId, appError?.headers);
}

/** OpenAI's error `type` for a status, and `param`: the field the first issue names (`/messages/0/content` → `messages.0.content`). */
function openAiFields(status: number, error: AppError | null): { type: string; param: string | null } {
  const type = status === 401 ? "authentication_error" : status === 403 ? "permission_error" : status === 404 ? "not_found_error" : status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
  const issues = (error?.details as { issues?: { path?: unknown }[] } | undefined)?.issues;
  const path = Array.isArray(issues) && typeof issues[0]?.path === "string" ? issues[0].path : null;
  return { type, param: path ? path.replace(/^\//, "").replaceAll("/", ".") || null : null };
}

async function authenticate(operation: Operation, request: Request): Promise<Actor | null> {
  if (operation.auth === "none") return null;
  const header = request.headers.get("authorization");
  if (operation.auth === "operator") {
    const expected = process.env.KINDGI_OPERATOR_TOKEN;
    if (!expected) throw new AppError("not-found", `no route ${operation.method} ${new URL(request.url).pathname}`);
    if (!header) throw new AppError("auth-missing", "this operation needs the operator token as a bearer token");
    const given = Buffer.from(bearerToken(header));
    const want = Buffer.from(expected);
    if (given.length !== want.length || !timingSafeEqual(given, want)) throw new AppError("auth-invalid", "the operator token is not valid");
    return null;
  }
  if (header) return authenticateApiKey(bearerToken(header));
  // The console's session cookie is the second credential; a request with both uses the key.
  const session = sessionTokenFromCookieHeader(request.headers.get("cookie"));
  if (!session) throw new AppError("auth-missing", "send an API key as `Authorization: Bearer kgi_…`, or sign in to the console");
  if (!SAFE_METHODS.has(request.method)) checkOrigin(request);
  return authenticateSession(session);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether the request's Origin is our own (as served: Host, or X-Forwarded-Host and X-Forwarded-Proto behind a proxy) or in KINDGI_ALLOWED_ORIGINS. */
/** The host a request names (X-Forwarded-Host behind a proxy, else Host), as sent. */
function requestHost(request: Request): string {
  return request.headers.get("x-forwarded-host")?.split(",")[0].trim() || request.headers.get("host") || new URL(request.url).host;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A host's name without its port, lower case (`[::1]` keeps its brackets). */
function hostName(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1);
  return value.split(":")[0];
}

function hostsOf(urls: string): string[] {
  return urls.split(",").flatMap((entry) => {
    try {
      return entry.trim() ? [hostName(new URL(entry.trim()).host)] : [];
    } catch {
      return [];
    }
  });
}

/**
 * DNS rebinding: a page of another site whose name resolves to this server sends its own name as Host (and as
 * Origin). Operations that serve other programs than the console (`sameOriginOnly`) answer only the names this
 * server is known by: loopback, KINDGI_PUBLIC_URL's host, KINDGI_ALLOWED_HOSTS (comma-separated names, ports ignored)
 * and the hosts of KINDGI_ALLOWED_ORIGINS.
 */
function isAllowedHost(request: Request): boolean {
  const name = hostName(requestHost(request));
  if (LOOPBACK_HOSTS.has(name)) return true;
  const configured = [
    ...hostsOf(process.env.KINDGI_PUBLIC_URL ?? ""),
    ...hostsOf(process.env.KINDGI_ALLOWED_ORIGINS ?? ""),
    ...(process.env.KINDGI_ALLOWED_HOSTS ?? "").split(",").map((entry) => (entry.trim() ? hostName(entry) : "")).filter(Boolean),
  ];
  return configured.includes(name);
}

function isAllowedOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host")?.split(",")[0].trim() || request.headers.get("host") || url.host;
  const protocol = request.headers.get("x-forwarded-proto")?.split(",")[0].trim() || url.protocol.replace(/:$/, "");
  const allowed = [`${protocol}://${host}`, ...(process.env.KINDGI_ALLOWED_ORIGINS ?? "").split(",")].map((entry) => entry.trim().replace(/\/+$/, "").toLowerCase()).filter(Boolean);
  return origin !== null && allowed.includes(origin.trim().toLowerCase());
}

/**
 * CSRF: a cookie-authenticated unsafe request must come from our own origin (as served: Host, or X-Forwarded-Host and
 * X-Forwarded-Proto behind a proxy) or one listed in KINDGI_ALLOWED_ORIGINS (comma-separated).
 */
function checkOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  if (!origin || !isAllowedOrigin(request))
    throw new AppError("csrf-origin-mismatch", origin ? `requests signed in with the console's cookie must come from the console; ${JSON.stringify(origin)} is not an allowed origin` : "a request signed in with the console's cookie must send an Origin header");
}

function bearerToken(header: string): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError("auth-invalid", "the Authorization header must be `Bearer <token>`");
  return match[1];
}

/** The body of a request that may have one (not GET or HEAD). */
async function readBody(operation: Operation, request: Request): Promise<{ body: unknown; text: string | undefined }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw new AppError("payload-too-large", `the request body may be at most ${MAX_BODY_BYTES} bytes`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await readAtMost(request, MAX_BODY_BYTES));
  } catch (error) {
    if (isAppError(error)) throw error;
    throw new AppError("bad-input", "the request body is not UTF-8");
  }
  let body: unknown;
  if (text.trim() === "") {
    if (operation.body && !operation.body.optional) throw new AppError("bad-input", "a JSON request body is required", { issues: [{ path: "", message: "is required" }] });
    body = operation.body ? {} : undefined;
  } else {
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new AppError("bad-input", `the request body is not valid JSON: ${(error as Error).message}`);
    }
  }
  inspectBody(body);
  validateBody(operation, body);
  return { body, text };
}

/** The body's bytes, read chunk by chunk: a (chunked) body past `limit` is refused as soon as it gets there. */
async function readAtMost(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) {
      await reader.cancel().catch(() => {});
      throw new AppError("payload-too-large", `the request body may be at most ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
