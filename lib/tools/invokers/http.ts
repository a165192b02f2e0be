/**
 * The `http` invoker: runs a tool's declarative `spec` (`kind: "http"`, Tool 1.3.0 HttpToolSpec).
 *
 * One call: validate the input (defaults filled) → fill the URL template (values URL-encoded) → check the destination
 * against the tool's network policy → resolve secrets → send (pinned to the checked address) → follow redirects
 * (each hop checked again) → check the status → parse → validate the output.
 *
 * Secrets are resolved for this call only and every resolved value is redacted from every message this returns, and
 * from the output itself, so none reaches the run's events, journal or logs. The request goes through `node:http(s)`
 * rather than `fetch`, because only there can the connection be pinned to the address the policy check allowed.
 */
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { MAX_TIMEOUT_MS, type HttpToolSpec, type NetworkPolicy, type ToolManifest, type ToolSecretRef } from "../manifest-schema";
import { getValidator, isObject, type Issue } from "../json-schema";
import { RUNTIME_SET_HEADERS, templatePlaceholders } from "../validate-manifest";
import { checkDestination, pinnedLookup, ToolNetworkError, type Destination, type HostResolver } from "../network-policy";

/** Default wall-clock limit of one call, redirects and body included. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Largest response body read; a larger one fails the call. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
/** Redirects followed before the call fails. */
export const MAX_REDIRECTS = 5;
/** Longest excerpt of an error response quoted in a message. */
const EXCERPT_CHARS = 500;
const REDACTED = "[redacted]";

/** Headers the runtime sets itself; a spec may not declare them (registration refuses them; this guards older manifests). */
const RUNTIME_HEADERS = RUNTIME_SET_HEADERS;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What the caller (the kernel) provides for one call. */
export type HttpInvokeContext = {
  /** Resolves a secret reference to its value, for this call only. */
  resolveSecret(ref: ToolSecretRef): Promise<string>;
  /** Derived from the run and the call, the same on every attempt; sent as `Idempotency-Key` on non-GET requests. */
  idempotencyKey: string;
  /** Aborts the call (a cancelled run, a spent wall-clock budget). */
  signal?: AbortSignal;
  /** Host resolution, replaceable in tests; defaults to DNS. */
  lookup?: HostResolver;
  /** The access tokens of the tool's connections (`needsSpec.connections`), resolved for this call by their names. */
  connections?: Readonly<Record<string, { accessToken: string }>>;
};

/** How a call failed, in the kernel's terms. */
export type HttpToolErrorKind = "invalid-arguments" | "tool-error" | "network-denied" | "host-unresolvable" | "timeout";

/** The outcome of one call. `status` is the final HTTP status when the server answered. */
export type HttpInvokeResult =
  | { ok: true; output: unknown; status: number }
  | { ok: false; error: { kind: HttpToolErrorKind; message: string; status?: number } };

/** One hop of a call; `authHeader` names the header carrying a secret, dropped when a redirect changes origin. */
type OutgoingRequest = { url: URL; method: string; headers: Record<string, string>; body?: string; authHeader?: string };

/** A failure with its kind; the message may still hold secrets until {@link invokeHttpTool} redacts it. */
class CallFailure extends Error {
  constructor(readonly kind: HttpToolErrorKind, message: string, readonly status?: number) {
    super(message);
  }
}

/**
 * Invokes an HTTP tool once. Never throws: every failure is a result with a kind and a message free of secrets.
 */
export async function invokeHttpTool(manifest: ToolManifest, input: unknown, context: HttpInvokeContext): Promise<HttpInvokeResult> {
  const secrets: string[] = [];
  // Registration refuses a larger timeout; a timer given more than it can hold would fire at once.
  const timeoutMs = Math.min(manifest.spec?.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = context.signal ? AbortSignal.any([context.signal, timeout.signal]) : timeout.signal;
  try {
    return { ok: true, ...(await invoke(manifest, input, { ...context, signal }, secrets)) };
  } catch (error) {
    const failure = timeout.signal.aborted
      ? new CallFailure("timeout", `the tool did not answer within ${timeoutMs} ms`)
      : context.signal?.aborted
        ? new CallFailure("tool-error", "the call was cancelled before the tool answered")
        : asFailure(error);
    const message = redact(failure.message, secrets);
    return { ok: false, error: failure.status === undefined ? { kind: failure.kind, message } : { kind: failure.kind, message, status: failure.status } };
  } finally {
    clearTimeout(timer);
  }
}

async function invoke(
  manifest: ToolManifest,
  input: unknown,
  context: HttpInvokeContext & { signal: AbortSignal },
  secrets: string[],
): Promise<{ output: unknown; status: number }> {
  const spec = manifest.spec;
  if (spec?.kind !== "http") throw new CallFailure("tool-error", `tool ${manifest.id} has no http spec`);
  const validated = validateData(manifest, "input", input);
  const args = isObject(validated) ? validated : {};
  const url = parseTarget(fillTemplate(spec.urlTemplate, args, urlValue));
  const destination = await abortable(checkDestination(url, manifest.network, { lookup: context.lookup }), context.signal);
  const request = await buildRequest(spec, url, { validated, original: input, args }, context, secrets);
  const response = await sendFollowingRedirects(request, destination, manifest.network, context);
  return readResult(manifest, spec, response, context.signal, secrets);
}

/** The first hop: body, Content-Type, the spec's headers, the authorization, and `Idempotency-Key` unless a GET. */
async function buildRequest(
  spec: HttpToolSpec,
  url: URL,
  input: { validated: unknown; original: unknown; args: Record<string, unknown> },
  context: HttpInvokeContext,
  secrets: string[],
): Promise<OutgoingRequest> {
  const { body, contentType } = requestBody(spec, input.validated, input.original, input.args);
  const auth = await authorization(spec, context, secrets);
  const headers: Record<string, string> = {
    ...(contentType ? { "content-type": contentType } : {}),
    ...specHeaders(spec),
    ...(auth && { [auth.name]: auth.value }),
    ...(spec.method !== "GET" && { "idempotency-key": context.idempotencyKey }),
  };
  return { url, method: spec.method, headers, body, authHeader: auth?.name };
}

/** The final response checked against `successStatus`, parsed, redacted and validated against the output schema. */
async function readResult(
  manifest: ToolManifest,
  spec: HttpToolSpec,
  response: IncomingMessage,
  signal: AbortSignal,
  secrets: string[],
): Promise<{ output: unknown; status: number }> {
  const body = await abortable(readBody(response), signal);
  const status = response.statusCode ?? 0;
  const { min, max } = spec.successStatus ?? { min: 200, max: 299 };
  if (status < min || status > max) {
    const excerpt = redact(body.toString("utf8"), secrets).slice(0, EXCERPT_CHARS);
    throw new CallFailure("tool-error", `the server answered ${status}${excerpt ? `: ${excerpt}` : ""}`, status);
  }
  const parsed = redactDeep(parseResponse(body, spec.parseJson ?? true, status), secrets);
  return { output: validateData(manifest, "output", parsed, status), status };
}

/** The data validated against the tool's `input` or `output` schema, with defaults filled. */
function validateData(manifest: ToolManifest, field: "input" | "output", data: unknown, status?: number): unknown {
  let validate: ReturnType<typeof getValidator>;
  try {
    validate = getValidator(manifest[field], manifest.transport);
  } catch (error) {
    throw new CallFailure("tool-error", `the tool's ${field} schema does not compile: ${errorMessage(error)}`);
  }
  const result = validate(data);
  if (result.ok) return result.value;
  const issues = formatIssues(result.issues);
  throw field === "input"
    ? new CallFailure("invalid-arguments", `the arguments do not match the tool's input schema: ${issues}`)
    : new CallFailure("tool-error", `output does not match the tool's output schema: ${issues}`, status);
}

function formatIssues(issues: Issue[]): string {
  return issues.map((issue) => `${issue.path || "/"} ${issue.message}`).join("; ");
}

/** `template` with each `{name}` placeholder replaced by `render(name, value)` of the input's value. */
function fillTemplate(template: string, args: Record<string, unknown>, render: (name: string, value: unknown) => string): string {
  let filled = "";
  let from = 0;
  for (const { name, index } of templatePlaceholders(template)) {
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    if (value === undefined || value === null) throw new CallFailure("invalid-arguments", `placeholder {${name}} has no value in the arguments`);
    filled += template.slice(from, index) + render(name, value);
    from = index + name.length + 2;
  }
  return filled + template.slice(from);
}

/** A URL placeholder's value: a string, number or boolean, URL-encoded. */
function urlValue(name: string, value: unknown): string {
  if (typeof value === "object") throw new CallFailure("invalid-arguments", `placeholder {${name}} must be a string, number or boolean`);
  return encodeURIComponent(String(value));
}

/** A text body placeholder's value: strings as they are, anything else as JSON. */
function textValue(_name: string, value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function parseTarget(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new CallFailure("tool-error", "the filled-in urlTemplate is not a valid URL");
  }
}

/** The body and its Content-Type: none unless the spec declares one, whatever the method. */
function requestBody(
  spec: HttpToolSpec,
  validated: unknown,
  original: unknown,
  args: Record<string, unknown>,
): { body?: string; contentType?: string } {
  switch (spec.requestBody?.kind) {
    case "json-input":
      return { body: JSON.stringify(validated), contentType: "application/json" };
    case "input-passthrough":
      return { body: JSON.stringify(original), contentType: "application/json" };
    case "text":
      return { body: fillTemplate(spec.requestBody.template, args, textValue), contentType: "text/plain; charset=utf-8" };
    default:
      return {};
  }
}

/**
 * The spec's headers, lower-cased and literal (placeholders are filled only in the URL and a text body). One of them
 * may replace the body's Content-Type, none the headers the runtime sets itself.
 */
function specHeaders(spec: HttpToolSpec): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { name, value } of spec.headers ?? []) {
    const key = name.toLowerCase();
    if (RUNTIME_HEADERS.has(key)) throw new CallFailure("tool-error", `header ${name} is set by the runtime and cannot be declared in the spec`);
    headers[key] = value;
  }
  return headers;
}

/** The authorization header (lower-cased name) with its secret resolved, or undefined when the spec declares none. */
async function authorization(
  spec: HttpToolSpec,
  context: HttpInvokeContext,
  secrets: string[],
): Promise<{ name: string; value: string } | undefined> {
  const auth = spec.authorization;
  if (!auth) return undefined;
  if (auth.kind === "connection") {
    const token = context.connections?.[auth.connection]?.accessToken;
    if (!token) throw new CallFailure("tool-error", `connection "${auth.connection}" was not resolved for this call`);
    secrets.push(token);
    return { name: "authorization", value: `Bearer ${token}` };
  }
  const secret = await resolveSecret(auth.secretRef, context, secrets);
  return auth.kind === "bearer" ? { name: "authorization", value: `Bearer ${secret}` } : { name: auth.headerName.toLowerCase(), value: secret };
}

async function resolveSecret(ref: ToolSecretRef, context: HttpInvokeContext, secrets: string[]): Promise<string> {
  let value: string;
  try {
    value = await context.resolveSecret(ref);
  } catch (error) {
    throw new CallFailure("tool-error", `secret "${ref.name}" could not be resolved: ${errorMessage(error)}`);
  }
  if (value) secrets.push(value);
  return value;
}

/** Sends the request and follows up to {@link MAX_REDIRECTS} redirects, checking every hop against the policy. */
async function sendFollowingRedirects(
  first: OutgoingRequest,
  firstDestination: Destination,
  policy: NetworkPolicy | undefined,
  context: HttpInvokeContext & { signal: AbortSignal },
): Promise<IncomingMessage> {
  let request = first;
  let destination = firstDestination;
  for (let redirects = 0; ; redirects++) {
    const response = await send(request, destination, context.signal);
    const next = redirectRequest(request, response);
    if (!next) return response;
    response.destroy();
    if (redirects === MAX_REDIRECTS) throw new CallFailure("tool-error", `more than ${MAX_REDIRECTS} redirects`);
    destination = await abortable(checkDestination(next.url, policy, { lookup: context.lookup }), context.signal);
    request = next;
  }
}

/**
 * The request a redirect asks for, or undefined when the response is final: only GET requests follow 301/302/307/308,
 * and a 303 turns any method into a GET without body. The authorization is dropped when the origin changes.
 */
function redirectRequest(request: OutgoingRequest, response: IncomingMessage): OutgoingRequest | undefined {
  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (!REDIRECT_STATUSES.has(status) || !location || (request.method !== "GET" && status !== 303)) return undefined;
  let url: URL;
  try {
    url = new URL(location, request.url);
  } catch {
    throw new CallFailure("tool-error", `the server redirected to an invalid URL (status ${status})`, status);
  }
  const headers = { ...request.headers };
  const sameOrigin = url.origin === request.url.origin;
  if (!sameOrigin && request.authHeader) delete headers[request.authHeader];
  if (request.method === "GET") return { ...request, url, headers, authHeader: sameOrigin ? request.authHeader : undefined };
  delete headers["content-type"];
  delete headers["idempotency-key"];
  return { url, method: "GET", headers, authHeader: sameOrigin ? request.authHeader : undefined };
}

/** One request over a fresh connection to the checked address (no pooled socket can be reused across policies). */
function send(request: OutgoingRequest, destination: Destination, signal: AbortSignal): Promise<IncomingMessage> {
  const transport = request.url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(
      request.url,
      { method: request.method, headers: request.headers, lookup: pinnedLookup(destination), agent: false, signal },
      resolve,
    );
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
}

/** The response body, at most {@link MAX_RESPONSE_BYTES}. */
async function readBody(response: IncomingMessage): Promise<Buffer> {
  const tooLarge = () => {
    response.destroy();
    return new CallFailure("tool-error", `the response body is larger than ${MAX_RESPONSE_BYTES} bytes`, response.statusCode);
  };
  if (Number(response.headers["content-length"]) > MAX_RESPONSE_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** JSON (an empty body is null) or text. */
function parseResponse(body: Buffer, parseJson: boolean, status: number): unknown {
  const text = body.toString("utf8");
  if (!parseJson) return text;
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new CallFailure("tool-error", `the response is not valid JSON (status ${status}); set parseJson: false to receive text`, status);
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (a DNS lookup or a body read cannot be cancelled otherwise). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function asFailure(error: unknown): CallFailure {
  if (error instanceof CallFailure) return error;
  if (error instanceof ToolNetworkError) return new CallFailure(error.code, error.message);
  return new CallFailure("tool-error", `the request failed: ${errorMessage(error)}`);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `text` with every secret value (as is, URL-encoded and JSON-escaped) replaced by a marker. */
function redact(text: string, secrets: string[]): string {
  const forms = secrets.flatMap((secret) => [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  return [...new Set(forms)]
    .sort((a, b) => b.length - a.length)
    .reduce((redacted, form) => redacted.replaceAll(form, REDACTED), text);
}

/** `value` with secrets redacted from every string in it (keys included); iterative, so a deeply nested response is safe. */
function redactDeep(value: unknown, secrets: string[]): unknown {
  if (secrets.length === 0) return value;
  const root: Record<string, unknown> = {};
  const stack: Array<[Record<string, unknown> | unknown[], string | number, unknown]> = [[root, "value", value]];
  const put = (target: Record<string, unknown> | unknown[], key: string | number, item: unknown) =>
    Object.defineProperty(target, key, { value: item, writable: true, enumerable: true, configurable: true });
  while (stack.length) {
    const [target, key, item] = stack.pop()!;
    if (typeof item === "string") put(target, key, redact(item, secrets));
    else if (Array.isArray(item)) {
      const copy: unknown[] = new Array(item.length);
      put(target, key, copy);
      for (let index = item.length - 1; index >= 0; index--) stack.push([copy, index, item[index]]);
    } else if (typeof item === "object" && item !== null) {
      const copy: Record<string, unknown> = {};
      put(target, key, copy);
      const entries = Object.entries(item).map(([name, child]) => [redact(name, secrets), child] as const);
      for (const [name] of entries) put(copy, name, undefined);
      for (let index = entries.length - 1; index >= 0; index--) stack.push([copy, entries[index][0], entries[index][1]]);
    } else put(target, key, item);
  }
  return root.value;
}
