/** Shapes of the run routes' answers (GET /v1/runs, /v1/runs/{id}, /journal, /stream) as the console reads them. */

export type RunStatus = "pending" | "running" | "suspended" | "completed" | "failed" | "cancelled";
export type RunOriginKind = "session" | "api-key" | "service-account" | "schedule" | "webhook" | "mcp";

export const RUN_STATUS_OPTIONS: readonly RunStatus[] = ["pending", "running", "suspended", "completed", "failed", "cancelled"];
export const RUN_ORIGIN_OPTIONS: readonly RunOriginKind[] = ["session", "api-key", "service-account", "schedule", "webhook", "mcp"];

export type RunOrigin = { kind: RunOriginKind; userId: string; apiKeyId?: string | null; scheduleId?: string; fireId?: string; webhookId?: string; deliveryId?: string; attended?: boolean; apiKeyName?: string; openai?: { api: "responses"; background?: boolean; store?: boolean } };

export type Run = {
  id: string;
  kind: "agent-turn" | "tool-invocation";
  status: RunStatus;
  projectId: string;
  agent: { id: string; version: string } | null;
  tool: { id: string; version: string } | null;
  conversationId: string | null;
  attended: boolean;
  createdBy: string;
  origin: RunOrigin | null;
  toolsAllowedUnattended: string[];
  input: { userMessage?: string; parameters?: Record<string, unknown>; arguments?: Record<string, unknown> };
  resolvedTools: { id: string; range: string; version: string }[] | null;
  provider: { id: string; model: string } | null;
  usage: { inputTokens: number; outputTokens: number; modelCalls: number; toolCalls: number };
  costUsd: number;
  output: unknown;
  failure: { code: string; message: string; details?: Record<string, unknown> } | null;
  flags: unknown[];
  retrievedFacts: unknown[];
  lastSeq: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
};

/** A journal event; `data` depends on `type` (unknown types are shown as they come). */
export type RunEvent = { seq: number; type: string; data: Record<string, unknown>; createdAt: string };

export type JournalPage = { data: RunEvent[]; hasMore: boolean; lastSeq: number };

export const isActiveStatus = (status: string) => status === "pending" || status === "running";
export const isTerminalStatus = (status: string) => status === "completed" || status === "failed" || status === "cancelled";
export const isTerminalEventType = (type: string) => type === "run-completed" || type === "run-failed" || type === "run-cancelled";

/** Providers that answer without a model (their text is not from a real model). */
export const isDevProvider = (providerId: string | null | undefined) => providerId === "dev-echo" || providerId === "scripted";

/** What started a run, in words. */
export function originWords(origin: RunOrigin | null): string {
  switch (origin?.kind) {
    case "session":
      return "a person in the console";
    case "api-key":
      return `a person's API key${origin.openai ? " (OpenAI Responses API)" : ""}`;
    case "service-account":
      return `a service account${origin.openai ? " (OpenAI Responses API)" : ""}`;
    case "schedule":
      return "a schedule";
    case "webhook":
      return "a webhook";
    case "mcp":
      return `${origin.attended === true ? "a person's MCP client" : origin.attended === false ? "a service account's MCP client" : "an MCP client"}${typeof origin.apiKeyName === "string" && origin.apiKeyName ? ` (key ${origin.apiKeyName})` : ""}`;
    default:
      return "not recorded";
  }
}
