/**
 * A reader of a /v1 server-sent-event stream over fetch (the session cookie goes with it): every event, whatever its
 * type, reaches `onEvent`; when the connection drops before `isLast` said the stream is over, it reconnects after a
 * second with `Last-Event-ID`, so nothing is lost or repeated. Frames without an `id:` line (a run's `model-delta`
 * pieces, never journaled) reach `onEvent` like the others but leave `Last-Event-ID` where it was: a resumed stream
 * counts journaled events only.
 */
import { apiUrl, toApiError } from "@/lib/client/api";

export type SseMessage = { id: string | null; event: string; data: string };

/** Splits a text buffer into complete SSE messages; returns them and the unfinished rest. */
export function parseSse(buffer: string): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  const normalized = buffer.replace(/\r\n?/g, "\n");
  const blocks = normalized.split("\n\n");
  const rest = blocks.pop() ?? "";
  for (const block of blocks) {
    let id: string | null = null;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length) messages.push({ id, event, data: data.join("\n") });
  }
  return { messages, rest };
}

/** The `Last-Event-ID` to resume with after `message`: its id, or the one before when it has none. */
export function lastEventIdAfter(current: string | null, message: SseMessage): string | null {
  return message.id ? message.id : current;
}

export type StreamHandle = { close(): void };

export function followStream(path: string, handlers: { onEvent(message: SseMessage): void; isLast(message: SseMessage): boolean; onError?(error: unknown): void; onConnected?(connected: boolean): void }): StreamHandle {
  const controller = new AbortController();
  let lastEventId: string | null = null;
  let finished = false;
  const run = async () => {
    while (!finished && !controller.signal.aborted) {
      try {
        const response = await fetch(apiUrl(path), { headers: { Accept: "text/event-stream", ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}) }, credentials: "same-origin", signal: controller.signal });
        if (!response.ok || !response.body) {
          const text = await response.text().catch(() => "");
          let payload: unknown;
          try {
            payload = JSON.parse(text);
          } catch {
            payload = undefined;
          }
          handlers.onError?.(toApiError(response.status, payload, response.headers.get("x-request-id")));
          return;
        }
        handlers.onConnected?.(true);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          const parsed = parseSse(buffer);
          buffer = parsed.rest;
          for (const message of parsed.messages) {
            lastEventId = lastEventIdAfter(lastEventId, message);
            handlers.onEvent(message);
            if (handlers.isLast(message)) finished = true;
          }
          if (finished) break;
        }
        if (finished) {
          await reader.cancel().catch(() => {});
          handlers.onConnected?.(false);
          return;
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if ((error as Error)?.name !== "TypeError") handlers.onError?.(error);
      }
      handlers.onConnected?.(false);
      if (!finished && !controller.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  void run();
  return {
    close() {
      finished = true;
      controller.abort();
    },
  };
}
