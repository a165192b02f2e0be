/**
 * Server-sent events of the approval inbox: `id: <seq>`, `event: <type>`, `data: <event JSON>` (lib/api/sse.ts).
 */
import { sseResponse } from "@/lib/api/sse";
import type { ApprovalEventView } from "@/lib/services/approvals";

/** The `since` a `Last-Event-ID` names (a sequence number), when it is one. */
export function seqFromApprovalEventId(header: string | null): number | undefined {
  const match = header ? /^(\d{1,10})$/.exec(header.trim()) : null;
  return match ? Number(match[1]) : undefined;
}

export function approvalEventStream(events: AsyncGenerator<ApprovalEventView | null>, signal: AbortSignal): Response {
  async function* frames(): AsyncGenerator<string | null> {
    for await (const event of events) yield event ? `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n` : null;
  }
  return sseResponse(frames(), signal, "approval stream", () => void events.return(undefined));
}
