import { randomUUID } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { allowedMethods } from "@/lib/api/method-table";
import { CONSOLE_PATH_HEADER } from "@/lib/client/console-path";

export function proxy(request: NextRequest) {
  const pathname = request.nextUrl.pathname;
  if (!pathname.startsWith("/v1/") && pathname !== "/v1") {
    // A console page: pass the path asked for on to the layout (it sends a person without a session to sign in and back).
    const forwarded = new Headers(request.headers);
    forwarded.set(CONSOLE_PATH_HEADER, `${pathname}${request.nextUrl.search}`);
    return NextResponse.next({ request: { headers: forwarded } });
  }
  // A /v1 path served with another method: 405 in the API's envelope (Next would answer an empty 405).
  const allowed = allowedMethods(pathname);
  if (!allowed || allowed.includes(request.method) || request.method === "OPTIONS") return NextResponse.next();
  const requestId = randomUUID();
  const body = { error: { code: "method-not-allowed", message: `${request.method} is not served at ${pathname}; use ${allowed.join(", ")}`, details: { allow: allowed }, requestId } };
  return new NextResponse(JSON.stringify(body), {
    status: 405,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "X-Request-Id": requestId, Allow: allowed.join(", ") },
  });
}

// /v1, and the console's pages (not the sign-in, next-auth, health, or Next's own files).
export const config = { matcher: ["/v1/:path*", "/((?!v1/|v1$|api/|_next/|sign-in|health|favicon\\.ico).*)"] };
