import { randomUUID } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { allowedMethods } from "@/lib/api/method-table";
import { jsonResponse } from "@/lib/api/respond";
import { AppError } from "@/lib/errors";
import { MAX_BODY_BYTES } from "@/lib/api/limits";

/** The methods Next.js hands to a route handler; it answers any other one with an empty 400. */
const ROUTED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

// In front of every /v1 route: what Next.js would answer with an empty or plain-text page (a path it cannot decode,
// a method no route handler takes, OPTIONS) is answered here, in the API's envelope.
export async function proxy(request: NextRequest) {
  const url = new URL(request.url);
  const malformed = malformedPercentEncoding(url);
  if (malformed) return errorAnswer(malformed);
  const allowed = allowedMethods(url.pathname);
  if (!allowed) {
    if (ROUTED_METHODS.has(request.method)) return NextResponse.next();
    return errorAnswer(new AppError("not-found", `no route ${request.method} ${url.pathname}`));
  }
  if (allowed.includes(request.method)) return (await bodyTooLarge(request)) ?? NextResponse.next();
  if (request.method === "OPTIONS") {
    return new NextResponse(null, { status: 204, headers: { "Cache-Control": "no-store", "X-Request-Id": randomUUID(), Allow: [...allowed, "OPTIONS"].sort().join(", ") } });
  }
  return errorAnswer(new AppError("method-not-allowed", `${request.method} is not served at ${url.pathname}; use ${allowed.join(", ")}`, { allow: allowed }, { Allow: allowed.join(", ") }));
}

/**
 * A 413 as soon as the body is known to pass the limit: Next.js waits for the whole body before it calls a route, so
 * only here is a chunked upload past the limit answered while it is still being sent (the route checks again).
 */
async function bodyTooLarge(request: NextRequest): Promise<Response | null> {
  if (!request.body) return null;
  const tooLarge = () => errorAnswer(new AppError("payload-too-large", `the request body may be at most ${MAX_BODY_BYTES} bytes`, undefined, { Connection: "close" }));
  if (Number(request.headers.get("content-length") ?? "0") > MAX_BODY_BYTES) return tooLarge();
  const reader = request.body.getReader();
  for (let length = 0; ; ) {
    const { done, value } = await reader.read();
    if (done) return null;
    length += value.byteLength;
    if (length > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return tooLarge();
    }
  }
}

function errorAnswer(error: AppError): Response {
  const requestId = randomUUID();
  const envelope = { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), requestId } };
  return jsonResponse(error.status, JSON.stringify(envelope), requestId, error.headers);
}

/** A path segment or query part whose percent-encoding does not decode to UTF-8 (`%zz`, `%E0%A4%A`, an encoded surrogate). */
function malformedPercentEncoding(url: URL): AppError | null {
  const shown = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  const segments = url.pathname.split("/");
  for (let i = 1; i < segments.length; i++) {
    if (!decodes(segments[i])) {
      return new AppError("bad-input", `path segment ${i} (${shown(segments[i])}) is not valid percent-encoded UTF-8`, { issues: [{ path: "/path", message: `segment ${i} is not valid percent-encoded UTF-8` }] });
    }
  }
  for (const part of url.search.slice(1).split("&")) {
    const [name, value = ""] = part.split(/=(.*)/s, 2);
    if (decodes(name) && decodes(value)) continue;
    const readable = decodes(name) ? decodeURIComponent(name.replaceAll("+", " ")) : name;
    return new AppError("bad-input", `query parameter ${shown(readable)} is not valid percent-encoded UTF-8`, { issues: [{ path: `/${readable}`, message: "not valid percent-encoded UTF-8" }] });
  }
  return null;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text.replaceAll("+", " "));
    return true;
  } catch {
    return false;
  }
}

export const config = { matcher: ["/v1/:path*"] };
