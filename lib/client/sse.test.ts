import { afterEach, describe, expect, it, vi } from "vitest";
import { emptyLiveAnswer, parseModelDelta, reduceLiveAnswer, writingCall, type LiveAnswer } from "@/lib/client/live-answer";
import type { RunEvent } from "@/lib/client/run-types";
import { followStream, lastEventIdAfter, parseSse, type SseMessage } from "@/lib/client/sse";

describe("parseSse", () => {
  it("splits complete messages, skips comments and keeps the unfinished rest", () => {
    const { messages, rest } = parseSse("retry: 1000\n\n: keep-alive\n\nid: r:1\nevent: run-created\ndata: {\"seq\":1}\n\nid: r:2\nevent: model-ca");
    expect(messages).toEqual([{ id: "r:1", event: "run-created", data: '{"seq":1}' }]);
    expect(rest).toBe("id: r:2\nevent: model-ca");
  });

  it("joins multi-line data and defaults the event name", () => {
    expect(parseSse("data: a\ndata: b\n\n").messages).toEqual([{ id: null, event: "message", data: "a\nb" }]);
  });

  it("reads frames without an id between journaled ones", () => {
    const { messages } = parseSse('id: r:4\nevent: turn-started\ndata: {"seq":4}\n\nevent: model-delta\ndata: {"callIndex":0,"attempt":1,"text":"Hi"}\n\nid: r:5\nevent: model-called\ndata: {"seq":5}\n\n');
    expect(messages.map((message) => [message.id, message.event])).toEqual([["r:4", "turn-started"], [null, "model-delta"], ["r:5", "model-called"]]);
    let lastEventId: string | null = null;
    const seen = messages.map((message) => (lastEventId = lastEventIdAfter(lastEventId, message)));
    expect(seen).toEqual(["r:4", "r:4", "r:5"]);
  });
});

const journaled = (runId: string, seq: number, type: string, data: Record<string, unknown> = {}) => `id: ${runId}:${seq}\nevent: ${type}\ndata: ${JSON.stringify({ seq, type, data, createdAt: "2026-01-01T00:00:00.000Z" })}\n\n`;
const piece = (data: Record<string, unknown>) => `event: model-delta\ndata: ${JSON.stringify(data)}\n\n`;

function streamOf(chunks: string[]): Response {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    }),
    { status: 200, headers: { "Content-Type": "text/event-stream" } },
  );
}

describe("followStream", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("resumes after a drop from the last journaled event, whatever deltas came after it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const requests: (string | null)[] = [];
    const responses = [
      // The first connection drops in the middle of model call 0.
      streamOf(["retry: 1000\n\n", journaled("r", 1, "run-created"), journaled("r", 2, "turn-started"), piece({ callIndex: 0, attempt: 1, text: "The quick " }), piece({ callIndex: 0, attempt: 1, text: "brown" })]),
      // The second starts with the text so far, then the call goes on and lands in the journal.
      streamOf([piece({ callIndex: 0, attempt: 1, text: "The quick brown fox", snapshot: true }), piece({ callIndex: 0, attempt: 1, text: " jumps." }), journaled("r", 3, "model-called", { index: 0, text: "The quick brown fox jumps." }), journaled("r", 4, "run-completed", { output: "The quick brown fox jumps." })]),
    ];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        requests.push(new Headers(init.headers).get("Last-Event-ID"));
        return responses.shift()!;
      }),
    );
    let answer: LiveAnswer = emptyLiveAnswer;
    const seqs: number[] = [];
    const texts: (string | null)[] = [];
    const received: SseMessage[] = [];
    const handle = followStream("/v1/runs/r/stream", {
      onEvent(message) {
        received.push(message);
        if (message.event === "model-delta") {
          const delta = parseModelDelta(message.data);
          if (delta) answer = reduceLiveAnswer(answer, { kind: "delta", delta });
        } else {
          const event = JSON.parse(message.data) as RunEvent;
          seqs.push(event.seq);
          answer = reduceLiveAnswer(answer, { kind: "event", event });
        }
        texts.push(writingCall(answer)?.text ?? null);
      },
      isLast: (message) => message.event === "run-completed",
    });
    await vi.waitFor(() => expect(received).toHaveLength(4));
    expect(writingCall(answer)?.text).toBe("The quick brown");
    await vi.advanceTimersByTimeAsync(1000);
    await vi.waitFor(() => expect(received).toHaveLength(8));
    handle.close();
    expect(requests).toEqual([null, "r:2"]);
    expect(seqs).toEqual([1, 2, 3, 4]);
    expect(texts).toEqual([null, null, "The quick ", "The quick brown", "The quick brown fox", "The quick brown fox jumps.", null, null]);
    expect(answer).toMatchObject({ calls: [], journaled: [0], ended: "completed" });
  });
});
