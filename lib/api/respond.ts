import { stringifyResponse } from "@/lib/json";

/** What a handler returns: a status and a body the wrapper serializes. */
export type ApiResult = {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The body holds a secret shown once (a new API key): never stored for idempotent replay. */
  containsSecret?: boolean;
  /**
   * Sent instead of the JSON body (a run started and streamed in one request); the JSON result is what an idempotent
   * repeat of the request replays.
   */
  response?: Response;
};

export const ok = (body: unknown, headers?: Record<string, string>): ApiResult => ({ status: 200, body, headers });
export const created = (body: unknown, options: { containsSecret?: boolean } = {}): ApiResult => ({ status: 201, body, ...options });

/** 204: success without a body (a DELETE); replayed as such for a repeat with the same Idempotency-Key. */
export const noContent = (): ApiResult => ({ status: 204, body: null });

export const baseHeaders = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

export function jsonResponse(status: number, bodyText: string, requestId: string, extra: Record<string, string> = {}): Response {
  if (status === 204) return new Response(null, { status, headers: { "Cache-Control": "no-store", "X-Request-Id": requestId, ...extra } });
  return new Response(bodyText, { status, headers: { ...baseHeaders, "X-Request-Id": requestId, ...extra } });
}

export function serialize(result: ApiResult): string {
  return stringifyResponse(result.body);
}

/** Whether the request asks for server-sent events (`Accept: text/event-stream`). */
export function acceptsEventStream(request: Request): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(request.headers.get("accept") ?? "");
}
