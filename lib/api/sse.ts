/**
 * Server-sent event streams: run journals (`id: <runId>:<seq>`, with ephemeral `model-delta` frames that have no id)
 * and the approval inbox (`id: <seq>`), each `event: <type>`, `data: <event JSON>`, with a comment line every 15 s so
 * proxies keep the connection open.
 */
import { baseHeaders } from "@/lib/api/respond";
import type { JournalEvent } from "@/lib/kernel/types";
import type { LiveDelta } from "@/lib/services/live-deltas";
import type { RunStreamItem } from "@/lib/services/runs";
import { log } from "@/lib/log";

const HEARTBEAT_MS = 15_000;

export function formatEvent(runId: string, event: JournalEvent): string {
  return `id: ${runId}:${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The response streaming the frames `frames` yields (a null frame sends nothing); it closes when they end or the
 * client leaves. `what` names the stream in the server log when it fails.
 */
export function sseResponse(frames: AsyncGenerator<string | null>, signal: AbortSignal, what: string, onCancel: () => void, options: { status?: number; headers?: Record<string, string> } = {}): Response {
  const encoder = new TextEncoder();
  let heartbeat: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
      try {
        controller.enqueue(encoder.encode("retry: 1000\n\n"));
        for await (const frame of frames) if (frame) controller.enqueue(encoder.encode(frame));
      } catch (error) {
        if (!signal.aborted) log.error(`${what} failed`, { err: error });
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
  return new Response(stream, { status: options.status ?? 200, headers: { ...baseHeaders, "Content-Type": "text/event-stream; charset=utf-8", Connection: "keep-alive", "X-Accel-Buffering": "no", ...options.headers } });
}

/** An ephemeral `model-delta` frame: no `id:` line, so `Last-Event-ID` keeps counting journaled events only. */
export function formatDelta(delta: LiveDelta): string {
  return `event: model-delta\ndata: ${JSON.stringify(delta)}\n\n`;
}

/**
 * The response streaming `first` and then the rest of `items` (journaled events and model deltas); it closes when
 * they end or the client leaves. `headers` are added to the stream's (a run started by the same request: its id).
 */
export function eventStream(runId: string, first: IteratorResult<RunStreamItem>, items: AsyncGenerator<RunStreamItem>, signal: AbortSignal, options: { status?: number; headers?: Record<string, string> } = {}): Response {
  const frame = (item: RunStreamItem) => (item.event ? formatEvent(runId, item.event) : formatDelta(item.delta));
  async function* frames(): AsyncGenerator<string> {
    if (first.done) return;
    yield frame(first.value);
    for await (const item of items) yield frame(item);
  }
  return sseResponse(frames(), signal, `stream of run ${runId}`, () => void items.return(undefined), options);
}
