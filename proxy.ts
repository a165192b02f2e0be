import { randomUUID } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { allowedMethods } from "@/lib/api/method-table";

// A /v1 path served with another method: 405 in the API's envelope (Next would answer an empty 405).
export function proxy(request: NextRequest) {
  const allowed = allowedMethods(request.nextUrl.pathname);
  if (!allowed || allowed.includes(request.method) || request.method === "OPTIONS") return NextResponse.next();
  const requestId = randomUUID();
  const body = { error: { code: "method-not-allowed", message: `${request.method} is not served at ${request.nextUrl.pathname}; use ${allowed.join(", ")}`, details: { allow: allowed }, requestId } };
  return new NextResponse(JSON.stringify(body), {
    status: 405,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "X-Request-Id": requestId, Allow: allowed.join(", ") },
  });
}

export const config = { matcher: ["/v1/:path*"] };
