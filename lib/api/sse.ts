/**
 * Server-sent event streams: run journals (`id: <runId>:<seq>`) and the approval inbox (`id: <seq>`), each
 * `event: <type>`, `data: <event JSON>`, with a comment line every 15 s so proxies keep the connection open.
 */
import { baseHeaders } from "@/lib/api/respond";
import type { JournalEvent } from "@/lib/kernel/types";

const HEARTBEAT_MS = 15_000;

export function formatEvent(runId: string, event: JournalEvent): string {
  return `id: ${runId}:${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The response streaming the frames `frames` yields (a null frame sends nothing); it closes when they end or the
 * client leaves. `what` names the stream in the server log when it fails.
 */
export function sseResponse(frames: AsyncGenerator<string | null>, signal: AbortSignal, what: string, onCancel: () => void): Response {
  const encoder = new TextEncoder();
  let heartbeat: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
      try {
        controller.enqueue(encoder.encode("retry: 1000\n\n"));
        for await (const frame of frames) if (frame) controller.enqueue(encoder.encode(frame));
      } catch (error) {
        if (!signal.aborted) console.error(`[kindgi] ${what} failed:`, error instanceof Error ? error.message : error);
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
      onCancel();
    },
  });
  return new Response(stream, { status: 200, headers: { ...baseHeaders, "Content-Type": "text/event-stream; charset=utf-8", Connection: "keep-alive", "X-Accel-Buffering": "no" } });
}

/** The response streaming `first` and then the rest of `events`; it closes when they end or the client leaves. */
export function eventStream(runId: string, first: IteratorResult<JournalEvent>, events: AsyncGenerator<JournalEvent>, signal: AbortSignal): Response {
  async function* frames(): AsyncGenerator<string> {
    if (first.done) return;
    yield formatEvent(runId, first.value);
    for await (const event of events) yield formatEvent(runId, event);
  }
  return sseResponse(frames(), signal, `stream of run ${runId}`, () => void events.return(undefined));
}
