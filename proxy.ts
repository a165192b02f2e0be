import { randomUUID } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { allowedMethods } from "@/lib/api/method-table";
import { jsonResponse } from "@/lib/api/respond";
import { CONSOLE_PATH_HEADER } from "@/lib/client/console-path";
import { AppError } from "@/lib/errors";

/** The methods Next.js hands to a route handler; it answers any other one with an empty 400. */
const ROUTED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

// In front of /health and the console's pages; not of /v1 (scripts/http-edge.mjs answers there what Next.js would
// answer with an empty or plain-text page: a path it cannot decode, a method no route handler takes, OPTIONS). For
// /health the same is answered here, in the API's envelope.
export function proxy(request: NextRequest) {
  const url = new URL(request.url);
  if (url.pathname !== "/health") {
    // A console page: pass the path asked for on to the layout (it sends a person without a session to sign in and back).
    const forwarded = new Headers(request.headers);
    forwarded.set(CONSOLE_PATH_HEADER, `${url.pathname}${url.search}`);
    return NextResponse.next({ request: { headers: forwarded } });
  }
  const malformed = malformedPercentEncoding(url);
  if (malformed) return errorAnswer(malformed);
  const allowed = allowedMethods(url.pathname);
  if (!allowed) {
    if (ROUTED_METHODS.has(request.method)) return NextResponse.next();
    return errorAnswer(new AppError("not-found", `no route ${request.method} ${url.pathname}`));
  }
  if (allowed.includes(request.method)) return NextResponse.next();
  if (request.method === "OPTIONS") {
    return new NextResponse(null, { status: 204, headers: { "Cache-Control": "no-store", "X-Request-Id": randomUUID(), Allow: [...allowed, "OPTIONS"].sort().join(", ") } });
  }
  return errorAnswer(new AppError("method-not-allowed", `${request.method} is not served at ${url.pathname}; use ${allowed.join(", ")}`, { allow: allowed }, { Allow: allowed.join(", ") }));
}

function errorAnswer(error: AppError): Response {
  const requestId = randomUUID();
  const envelope = { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), requestId } };
  return jsonResponse(error.status, JSON.stringify(envelope), requestId, error.headers);
}

/**
 * A path segment whose percent-encoding does not decode to UTF-8 (`%zz`, `%E0%A4%A`, an encoded surrogate), which
 * Next.js would answer with a plain 500. (The query is checked by scripts/http-edge.mjs: Next.js re-encodes it before
 * any app code sees it, with U+FFFD in place of what does not decode.)
 */
function malformedPercentEncoding(url: URL): AppError | null {
  const shown = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  const segments = url.pathname.split("/");
  for (let i = 1; i < segments.length; i++) {
    if (!decodes(segments[i])) {
      return new AppError("bad-input", `path segment ${i} (${shown(segments[i])}) is not valid percent-encoded UTF-8`, { issues: [{ path: "/path", message: `segment ${i} is not valid percent-encoded UTF-8` }] });
    }
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

// /health and the console's pages (not /v1, the sign-in, next-auth, or Next's own files).
export const config = { matcher: ["/health", "/((?!v1/|v1$|api/|_next/|sign-in|health|favicon\\.ico).*)"] };
