import { log } from "@/lib/log";

/** A generator of SSE frames as a streamed response (the OpenAI-compatible routes' streams). */
export function frameStream(frames: AsyncGenerator<string>, signal: AbortSignal, runId: string, what: string): Response {
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await frames.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        if (!signal.aborted) log.error(`the ${what} of a run failed`, { runId, err: error });
        controller.close();
      }
    },
    cancel() {
      void frames.return(undefined);
    },
  });
  return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", Connection: "keep-alive", "X-Accel-Buffering": "no", "X-Kindgi-Run-Id": runId } });
}
