/**
 * A server-sent events client for tests and benchmarks: reads a `fetch` response's frames as they arrive, each with
 * the moment it was read (performance.now()), and waits for the frames a test expects.
 */
export type SseFrame = { id?: string; event: string; data: any; at: number };

export type SseReader = {
  response: Response;
  frames: SseFrame[];
  /** Resolves once `until(frames)` holds (checked at every frame), or rejects after `timeoutMs` or at the stream's end. */
  waitFor(until: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<SseFrame[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
};

/** Parses one frame's lines (`field: value`, comments skipped); null for a frame without data (a comment, `retry:`). */
export function parseFrame(block: string, at: number): SseFrame | null {
  const fields: Record<string, string> = {};
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    fields[name] = name === "data" && fields.data !== undefined ? `${fields.data}\n${value}` : value;
  }
  if (fields.data === undefined) return null;
  let data: unknown = fields.data;
  try {
    data = JSON.parse(fields.data);
  } catch {
    // Not JSON (an OpenAI stream's `[DONE]`): the text as it is.
  }
  return { ...(fields.id !== undefined && { id: fields.id }), event: fields.event ?? "message", data, at };
}

/** Starts reading `response`'s frames. */
export function readSse(response: Response): SseReader {
  const frames: SseFrame[] = [];
  const waiters = new Set<() => void>();
  let finished = false;
  let failure: unknown = null;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        const at = performance.now();
        buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = parseFrame(buffer.slice(0, end), at);
          buffer = buffer.slice(end + 2);
          if (frame) frames.push(frame);
        }
        for (const wake of [...waiters]) wake();
      }
    } catch (error) {
      failure = error;
    } finally {
      finished = true;
      for (const wake of [...waiters]) wake();
    }
  })();
  return {
    response,
    frames,
    ended,
    waitFor(until, timeoutMs = 15_000) {
      return new Promise<SseFrame[]>((resolve, reject) => {
        const check = () => {
          if (until(frames)) return done(() => resolve(frames));
          if (finished) return done(() => reject(new Error(`the stream ended before the expected frames came (${failure ? String(failure) : "closed"}): ${frames.map((frame) => frame.event).join(", ")}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`the expected frames did not come within ${timeoutMs} ms: ${frames.map((frame) => frame.event).join(", ")}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      reader.cancel().catch(() => {});
    },
  };
}

/** The journaled events among `frames` (those with an `id:`), and the `model-delta` frames. */
export const journaled = (frames: SseFrame[]) => frames.filter((frame) => frame.event !== "model-delta");
export const deltas = (frames: SseFrame[]) => frames.filter((frame) => frame.event === "model-delta");

/** The text a client shows for model call `callIndex` from its delta frames: snapshots replace, a new attempt restarts. */
export function assembledText(frames: SseFrame[], callIndex: number): { attempt: number; text: string } {
  let attempt = 0;
  let text = "";
  for (const frame of deltas(frames)) {
    const delta = frame.data;
    if (delta.callIndex !== callIndex) continue;
    if (delta.attempt > attempt || delta.snapshot) {
      attempt = delta.attempt;
      text = "";
    }
    if (delta.attempt < attempt) continue;
    text += delta.text ?? "";
  }
  return { attempt, text };
}
