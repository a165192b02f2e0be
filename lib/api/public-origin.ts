/**
 * The origin callers reach this server at, for URLs the API hands out (a webhook's receiver, a notification's link):
 * KINDGI_PUBLIC_URL when set, else the request's own (X-Forwarded-Proto / X-Forwarded-Host behind a proxy).
 */
export function publicOrigin(request: Request): string {
  const configured = process.env.KINDGI_PUBLIC_URL?.trim().replace(/\/+$/, "");
  if (configured) return configured;
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host")?.split(",")[0].trim() || request.headers.get("host") || url.host;
  const protocol = request.headers.get("x-forwarded-proto")?.split(",")[0].trim() || url.protocol.replace(/:$/, "");
  return `${protocol}://${host}`;
}
