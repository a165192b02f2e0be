/**
 * A tool call's log lines and progress as they happen: the kernel publishes them on the event bus (`tool:<runId>`),
 * and the MCP server relays them to the client waiting for the call (notifications/message, notifications/progress),
 * on whichever replica runs the call. The log lines are journaled with the call's result as well; progress is not.
 */
import { eventBus } from "@/lib/services/event-bus";
import type { ToolLiveEvent } from "@/lib/kernel/types";

export const toolLiveTopic = (runId: string) => `tool:${runId}`;

export function publishToolLive(runId: string, event: ToolLiveEvent): void {
  eventBus().publish(toolLiveTopic(runId), event);
}

/** Whether `value` is an event as published (what the bus carries is JSON from another process). */
export function isToolLiveEvent(value: unknown): value is ToolLiveEvent {
  if (typeof value !== "object" || value === null) return false;
  const event = value as Record<string, unknown>;
  if (typeof event.callId !== "string" || typeof event.toolId !== "string") return false;
  if (event.kind === "progress") return typeof event.progress === "number";
  if (event.kind !== "log" || typeof event.line !== "object" || event.line === null) return false;
  const line = event.line as Record<string, unknown>;
  return typeof line.message === "string" && typeof line.level === "string";
}
