/**
 * Server-sent events of the approval inbox: `id: <seq>`, `event: <type>`, `data: <event JSON>`, with a comment line
 * every 15 s so proxies keep the connection open.
 */
import { baseHeaders } from "@/lib/api/respond";
import type { ApprovalEventView } from "@/lib/services/approvals";

const HEARTBEAT_MS = 15_000;

/** The `since` a `Last-Event-ID` names (a sequence number), when it is one. */
export function seqFromApprovalEventId(header: string | null): number | undefined {
  const match = header ? /^(\d{1,10})$/.exec(header.trim()) : null;
  return match ? Number(match[1]) : undefined;
}

export function approvalEventStream(events: AsyncGenerator<ApprovalEventView | null>, signal: AbortSignal): Response {
  const encoder = new TextEncoder();
  let heartbeat: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
      try {
        controller.enqueue(encoder.encode("retry: 1000\n\n"));
        for await (const event of events) {
          if (event) controller.enqueue(encoder.encode(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
        }
      } catch (error) {
        if (!signal.aborted) console.error("[kindgi] approval stream failed:", error instanceof Error ? error.message : error);
      } finally {
        clearInterval(heartbeat);
        try {
          controller.close();
        } catch {
          // already closed by the client leaving
        }
      }
    },
    cancel() {
      clearInterval(heartbeat);
      void events.return(undefined);
    },
  });
  return new Response(stream, { status: 200, headers: { ...baseHeaders, "Content-Type": "text/event-stream; charset=utf-8", Connection: "keep-alive", "X-Accel-Buffering": "no" } });
}
