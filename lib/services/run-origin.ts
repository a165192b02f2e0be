/**
 * What started a run, recorded on it: a person in the console, a person's key, a service account's key, a
 * schedule's fire, a webhook's delivery or a `tools/call` of the MCP server (`/v1/mcp`, with a person's or a service
 * account's key: `attended` says which). A run is attended only when a person started it (DESIGN.md §3).
 */
import type { Actor } from "@/lib/services/actor";

/**
 * A run started through `POST /v1/responses` (lib/doors/openai/responses.ts): started in the background (answered at
 * once, polled), or with `store: false` (not served again by the Responses API; the run is kept as every run is).
 */
export type ResponsesStart = { api: "responses"; background?: true; store?: false };

export type RunOrigin =
  | { kind: "session"; userId: string }
  | { kind: "api-key"; userId: string; apiKeyId: string; openai?: ResponsesStart }
  | { kind: "service-account"; userId: string; apiKeyId: string | null; openai?: ResponsesStart }
  | { kind: "schedule"; userId: string; scheduleId: string; fireId: string }
  | { kind: "webhook"; userId: string; webhookId: string; deliveryId: string }
  | { kind: "mcp"; userId: string; apiKeyId: string | null; apiKeyName?: string; attended: boolean };

export const RUN_ORIGIN_KINDS = ["session", "api-key", "service-account", "schedule", "webhook", "mcp"] as const;

/** A trigger that starts unattended runs (a schedule fire, a webhook delivery), and the tools it lets run without asking. */
export type RunTrigger = { origin: Extract<RunOrigin, { kind: "schedule" | "webhook" }>; toolsAllowedUnattended: string[] };

/** The origin of a run a caller starts directly over the API or from the console. */
export function originOf(actor: Actor): RunOrigin {
  if (actor.isService) return { kind: "service-account", userId: actor.userId, apiKeyId: actor.apiKeyId };
  if (actor.apiKeyId) return { kind: "api-key", userId: actor.userId, apiKeyId: actor.apiKeyId };
  return { kind: "session", userId: actor.userId };
}

/** The origin of a run started through the Responses API with a person's or a service account's key. */
export function responsesOriginOf(actor: Actor, start: ResponsesStart): RunOrigin {
  const origin = originOf(actor);
  return origin.kind === "api-key" || origin.kind === "service-account" ? { ...origin, openai: start } : origin;
}

/** The origin of a run started by a `tools/call` of the MCP server: attended when the credential is a person's. */
export function mcpOriginOf(actor: Actor): RunOrigin {
  return { kind: "mcp", userId: actor.userId, apiKeyId: actor.apiKeyId, ...(actor.apiKeyName ? { apiKeyName: actor.apiKeyName.slice(0, 200) } : {}), attended: !actor.isService };
}

/** Whether a person started the run. */
export const isAttendedOrigin = (origin: RunOrigin): boolean => origin.kind === "session" || origin.kind === "api-key" || (origin.kind === "mcp" && origin.attended);
