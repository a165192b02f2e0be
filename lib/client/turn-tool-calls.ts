/**
 * The tool calls of a turn as the conversation shows them, from the journal alone: each call the model asked for
 * (its `model-called` event, call ids `<model call index>.<position>`), then what became of it — waiting for a
 * person or another system, running, returned or failed. Arguments are the ones the call runs with once it started
 * (an edited approval changes them), the model's before. A call the run's end left unfinished is "stopped".
 */
import { isTerminalEventType, type RunEvent } from "@/lib/client/run-types";

export type TurnToolCallStatus = "asked" | "waiting-approval" | "waiting" | "running" | "returned" | "failed" | "stopped";

export type TurnToolCall = {
  callId: string;
  toolId: string;
  version: string | null;
  arguments: unknown;
  status: TurnToolCallStatus;
  durationMs: number | null;
  error: { kind?: string; message?: string } | null;
};

export function turnToolCalls(events: readonly RunEvent[]): TurnToolCall[] {
  const calls: TurnToolCall[] = [];
  const byId = new Map<string, TurnToolCall>();
  const callOf = (callId: string, toolId: string): TurnToolCall => {
    let call = byId.get(callId);
    if (!call) {
      call = { callId, toolId, version: null, arguments: undefined, status: "asked", durationMs: null, error: null };
      byId.set(callId, call);
      calls.push(call);
    }
    return call;
  };
  for (const event of [...events].sort((a, b) => a.seq - b.seq)) {
    const data = event.data ?? {};
    switch (event.type) {
      case "model-called": {
        const asked = Array.isArray(data.toolCalls) ? (data.toolCalls as { name?: string; arguments?: unknown }[]) : [];
        asked.forEach((item, position) => {
          const call = callOf(`${Number(data.index ?? 0)}.${position}`, String(item?.name ?? ""));
          if (call.arguments === undefined) call.arguments = item?.arguments;
        });
        break;
      }
      case "approval-requested":
        if (data.kind !== "session" && typeof data.callId === "string") {
          const call = callOf(data.callId, String(data.toolId ?? ""));
          call.status = "waiting-approval";
          if (typeof data.version === "string") call.version = data.version;
        }
        break;
      case "approval-decided":
        if (typeof data.callId === "string" && byId.get(data.callId)?.status === "waiting-approval") byId.get(data.callId)!.status = "asked";
        break;
      case "wait-started":
        if (typeof data.callId === "string") callOf(data.callId, String(data.toolId ?? "")).status = "waiting";
        break;
      case "tool-call-started": {
        const call = callOf(String(data.callId), String(data.toolId ?? ""));
        call.toolId = String(data.toolId ?? call.toolId);
        call.version = typeof data.version === "string" ? data.version : call.version;
        call.arguments = data.arguments;
        call.status = "running";
        break;
      }
      case "wait-completed":
        if (typeof data.callId === "string" && byId.get(data.callId)?.status === "waiting") byId.get(data.callId)!.status = "running";
        break;
      case "tool-call-completed": {
        const call = callOf(String(data.callId), String(data.toolId ?? ""));
        call.status = data.ok === false ? "failed" : "returned";
        call.durationMs = typeof data.durationMs === "number" ? data.durationMs : null;
        call.error = data.ok === false ? ((data.error as TurnToolCall["error"]) ?? {}) : null;
        break;
      }
      default:
        if (isTerminalEventType(event.type)) for (const call of calls) if (call.status !== "returned" && call.status !== "failed") call.status = "stopped";
        break;
    }
  }
  return calls;
}
