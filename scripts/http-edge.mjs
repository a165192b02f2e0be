// Loaded into the `next start` process by scripts/start.mjs (`node --import`): the one layer in front of Next.js (the
// app has no Next.js proxy, so no matcher runs on any request). It answers, in the API's error envelope and with
// X-Request-Id, the requests that never reach the app's code:
// - methods the fetch standard forbids (TRACE, TRACK, CONNECT): Next.js cannot build a Request for them, so it would
//   answer a plain-text 500 and log a stack trace for each one;
// - an API query string that is not valid percent-encoded UTF-8 (`?q=%zz`, `?q=%ED%A0%80`): Next.js re-encodes the
//   query before any app code sees it, turning such bytes into U+FFFD silently;
// - an API request body past the limit: Next.js reads a body to its end before it runs a route. One that declares its
//   size (Content-Length) is answered 413 here at once, unread. A chunked one ends for Next.js one chunk past the limit
//   (the route then answers 413), the rest is discarded unread and the connection closed after the answer, so even an
//   endless upload is answered;
// - on an API path, /health, /health/ready or /metrics: a path segment that is not valid percent-encoded UTF-8 (Next.js would answer a plain
//   500), a method the path does not serve (405 with Allow), OPTIONS (204 with Allow), and at a path no operation has,
//   a method no route handler takes (404);
// - requests Node's HTTP parser refuses (a method it does not know, an odd-cased one such as `get`, a malformed
//   request line or header, headers too large, a timeout): Node would answer an empty 400, 431 or 408.
// Every other request passes to Next.js untouched, but for one header: a page request carries the path asked for in
// CONSOLE_PATH_HEADER (whatever the client sent in it), so that the console's layouts can send a person without a
// session to sign in and back. And every answer leaves in one write where Next.js would make two (OneWriteResponse).
import { randomUUID } from "node:crypto";
import http from "node:http";

const FORBIDDEN_METHODS = new Set(["TRACE", "TRACK", "CONNECT"]);
/** lib/api/limits.ts MAX_BODY_BYTES: the largest API request body. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** lib/client/console-path.ts CONSOLE_PATH_HEADER (scripts/http-edge.test.ts checks they agree). */
export const CONSOLE_PATH_HEADER = "x-kindgi-console-path";
/** An API target: `/v1` itself or below it, with or without a query. */
const isApiTarget = (target) => target.startsWith("/v1") && (target.length === 3 || target[3] === "/" || target[3] === "?");
/**
 * The documents outside /v1 answered like an API path (their rows are in the table): the health checks (`/health`,
 * `/health/ready`), the metrics (`/metrics`), and the MCP server's protected-resource metadata
 * (`/.well-known/oauth-protected-resource/v1/mcp`, RFC 9728).
 */
const isExactTarget = (target, path) => target.startsWith(path) && (target.length === path.length || target[path.length] === "?");
const isHealthTarget = (target) => isExactTarget(target, "/health") || isExactTarget(target, "/health/ready") || isExactTarget(target, "/metrics") || target.startsWith("/.well-known/oauth-protected-resource/");
/** Where a path outside the API's table (a console page) is served. */
const PAGE_METHODS = ["GET", "HEAD"];

let allowedMethods = null;
let provideTable;
const tableProvided = new Promise((resolve) => (provideTable = resolve));
// instrumentation.ts hands over the API's method table (lib/api/method-table.ts) once the app is loaded.
globalThis[Symbol.for("kindgi.http-edge")] = {
  setAllowedMethods(lookup) {
    allowedMethods = lookup;
    provideTable();
  },
};

/** The answer to `method` at `target` when that method never reaches the app. */
export function methodAnswer(method, target, lookup = allowedMethods) {
  const pathname = target.startsWith("/") ? target.split("?")[0] : null;
  const allowed = pathname === null ? PAGE_METHODS : lookup?.(pathname) ?? (pathname === "/v1" || pathname.startsWith("/v1/") ? null : PAGE_METHODS);
  if (!allowed) return { status: 404, code: "not-found", message: `no route ${method} ${pathname}` };
  const hint = allowed.includes(method.toUpperCase()) && method !== method.toUpperCase() ? ` (methods are case-sensitive: ${method.toUpperCase()})` : "";
  return {
    status: 405,
    code: "method-not-allowed",
    message: `${method} is not served at ${pathname ?? target}; use ${allowed.join(", ")}${hint}`,
    details: { allow: allowed },
    headers: { Allow: allowed.join(", ") },
  };
}

/** A 400 for an API target (`/v1…`) whose query does not decode strictly as percent-encoded UTF-8, or null. */
export function malformedQueryAnswer(target) {
  const start = target.indexOf("?");
  if (!isApiTarget(target) || start < 0) return null;
  for (const part of target.slice(start + 1).split("&")) {
    const [name, value = ""] = part.split(/=(.*)/s, 2);
    if (decodes(name) && decodes(value)) continue;
    const readable = decodes(name) ? decodeURIComponent(name.replaceAll("+", " ")) : name;
    const shown = JSON.stringify(readable.length > 80 ? `${readable.slice(0, 80)}…` : readable);
    return { status: 400, code: "bad-input", message: `query parameter ${shown} is not valid percent-encoded UTF-8`, details: { issues: [{ path: `/${readable}`, message: "not valid percent-encoded UTF-8" }] } };
  }
  return null;
}

/** The methods Next.js hands to a route handler; it answers any other one with an empty 400. */
const ROUTED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * What the API answers itself before Next.js for an API path (`/v1…`), or null to pass the request on: a path segment
 * whose percent-encoding does not decode to UTF-8 (Next.js would answer a plain 500), a method the path does not serve
 * (405 with Allow), OPTIONS (204 with Allow), a method no route handler takes at an unknown path (404).
 */
export function apiAnswer(method, target, lookup = allowedMethods) {
  if (!isApiTarget(target) && !isHealthTarget(target)) return null;
  const query = target.indexOf("?");
  const pathname = query < 0 ? target : target.slice(0, query);
  if (pathname.includes("%")) {
    const segments = pathname.split("/");
    for (let i = 1; i < segments.length; i++) {
      if (segments[i].includes("%") && !decodes(segments[i])) {
        const shown = JSON.stringify(segments[i].length > 80 ? `${segments[i].slice(0, 80)}…` : segments[i]);
        return { status: 400, code: "bad-input", message: `path segment ${i} (${shown}) is not valid percent-encoded UTF-8`, details: { issues: [{ path: "/path", message: `segment ${i} is not valid percent-encoded UTF-8` }] } };
      }
    }
  }
  const allowed = lookup(pathname);
  if (!allowed) return ROUTED_METHODS.has(method) ? null : { status: 404, code: "not-found", message: `no route ${method} ${pathname}` };
  if (allowed.includes(method)) return null;
  if (method === "OPTIONS") return { status: 204, headers: { Allow: [...allowed, "OPTIONS"].sort().join(", ") } };
  return { status: 405, code: "method-not-allowed", message: `${method} is not served at ${pathname}; use ${allowed.join(", ")}`, details: { allow: allowed }, headers: { Allow: allowed.join(", ") } };
}

function decodes(text) {
  try {
    decodeURIComponent(text.replaceAll("+", " "));
    return true;
  } catch {
    return false;
  }
}

/** The answer to a request Node's HTTP parser refused (`error` as given to the server's `clientError` event). */
export function clientErrorAnswer(error, lookup = allowedMethods) {
  if (error.code === "HPE_HEADER_OVERFLOW") return { status: 431, code: "headers-too-large", message: "the request headers are too large" };
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return { status: 408, code: "request-timeout", message: "the request was not received in time" };
  const requestLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.[01]\r?\n/.exec(error.rawPacket?.toString("latin1") ?? "");
  if (error.code === "HPE_INVALID_METHOD" && requestLine) return methodAnswer(requestLine[1], requestLine[2], lookup);
  return { status: 400, code: "bad-input", message: `the request is not valid HTTP/1.1 (${error.code ?? "parse error"})` };
}

function envelope(answer) {
  const requestId = randomUUID();
  if (answer.status === 204) return { status: 204, headers: { "Cache-Control": "no-store", "X-Request-Id": requestId, ...answer.headers }, body: "" };
  const body = JSON.stringify({ error: { code: answer.code, message: answer.message, ...(answer.details ? { details: answer.details } : {}), requestId } });
  const headers = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "X-Request-Id": requestId, ...answer.headers, "Content-Length": String(Buffer.byteLength(body)) };
  return { status: answer.status, headers, body };
}

/** The method table, or none if the app has not handed it over within a few seconds (the 405 then names page methods). */
async function table() {
  if (!allowedMethods) await Promise.race([tableProvided, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  return allowedMethods;
}

async function answerRequest(request, response, answer) {
  const { status, headers, body } = envelope(answer ?? methodAnswer(request.method, request.url ?? "/", await table()));
  response.writeHead(status, headers);
  response.end(body);
}

/** A complete HTTP/1.1 response written to a socket that has no response object (parser errors, CONNECT). */
async function answerSocket(socket, answer) {
  const { status, headers, body } = envelope(await answer());
  if (!socket.writable) return socket.destroy();
  const lines = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), "Connection: close"];
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}

/** A 413 for an API request that declares a body past the limit: answered at once, the body is never read. */
export function declaredTooLarge(request) {
  if (!isApiTarget(request.url ?? "") || !(Number(request.headers["content-length"]) > MAX_BODY_BYTES)) return null;
  return { status: 413, code: "payload-too-large", message: `the request body may be at most ${MAX_BODY_BYTES} bytes` };
}

/**
 * Lets an API request's body through to Next.js until it passes `limit`, then ends it there (Next.js sees a body past
 * the limit and answers 413) and discards the rest; the connection closes once the answer is sent.
 */
export function capBody(request, response, limit = MAX_BODY_BYTES) {
  const emit = request.emit;
  let seen = 0;
  let cut = false;
  request.emit = function cappedEmit(event, ...args) {
    if (cut && (event === "data" || event === "end")) return false;
    if (event === "data") {
      seen += args[0].length;
      if (seen > limit) {
        cut = true;
        emit.call(this, "data", args[0]);
        return emit.call(this, "end");
      }
    }
    return emit.call(this, event, ...args);
  };
  response.on("finish", () => {
    if (cut) request.socket?.end();
  });
}

function guard(server) {
  server.on("clientError", (error, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable || socket._httpMessage?.headersSent) return socket.destroy();
    answerSocket(socket, async () => clientErrorAnswer(error, await table())).catch(() => socket.destroy());
  });
  server.on("connect", (request, socket) => {
    answerSocket(socket, async () => methodAnswer(request.method, request.url ?? "", await table())).catch(() => socket.destroy());
  });
  return server;
}

/** The path and query of a page request's target (an absolute-form target gives its path). */
export function pagePath(target) {
  if (target.startsWith("/")) return target;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return "/";
  }
}

/**
 * The server's responses. Next.js calls `flushHeaders()` right before it writes a response's first chunk, which sends
 * the status line and headers in a write (a system call, a TCP segment for the client to read) of their own. Here they
 * wait for that chunk instead: Node.js sends a response's head with its first chunk, or with its end when it has
 * none, and writes the chunk in the same turn of the event loop, so nothing is held back and an answer takes one write
 * instead of two.
 */
export class OneWriteResponse extends http.ServerResponse {
  flushHeaders() {}
}

const createServer = http.createServer;
http.createServer = function createGuardedServer(...args) {
  if (args[0] !== null && typeof args[0] === "object") args[0] = { ServerResponse: OneWriteResponse, ...args[0] };
  else args.unshift({ ServerResponse: OneWriteResponse });
  const index = args.findIndex((arg) => typeof arg === "function");
  if (index >= 0) {
    const listener = args[index];
    args[index] = function guardedListener(request, response) {
      const target = request.url ?? "/";
      if (FORBIDDEN_METHODS.has(request.method)) {
        request.resume(); // whatever body was sent is discarded unread
        return answerRequest(request, response, null).catch(() => response.destroy());
      }
      const api = isApiTarget(target);
      if (!api && !isHealthTarget(target)) {
        request.headers[CONSOLE_PATH_HEADER] = pagePath(target);
        return listener.call(this, request, response);
      }
      const malformed = api ? malformedQueryAnswer(target) ?? declaredTooLarge(request) : null;
      if (malformed) {
        request.resume();
        return answerRequest(request, response, malformed).catch(() => response.destroy());
      }
      const pass = (answer) => {
        if (answer) return answerRequest(request.resume(), response, answer).catch(() => response.destroy());
        // Only a request that has a body is watched (a GET's has none).
        if (api && (request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined)) capBody(request, response);
        return listener.call(this, request, response);
      };
      // The method table arrives once the app has loaded; until then a request waits for it.
      if (allowedMethods) return pass(apiAnswer(request.method, target));
      return table()
        .then((lookup) => pass(lookup ? apiAnswer(request.method, target, lookup) : null))
        .catch(() => response.destroy());
    };
  }
  return guard(createServer.apply(this, args));
};
