import { describe, expect, it } from "vitest";
import { parseSse } from "@/lib/client/sse";

describe("parseSse", () => {
  it("splits complete messages, skips comments and keeps the unfinished rest", () => {
    const { messages, rest } = parseSse("retry: 1000\n\n: keep-alive\n\nid: r:1\nevent: run-created\ndata: {\"seq\":1}\n\nid: r:2\nevent: model-ca");
    expect(messages).toEqual([{ id: "r:1", event: "run-created", data: '{"seq":1}' }]);
    expect(rest).toBe("id: r:2\nevent: model-ca");
  });

  it("joins multi-line data and defaults the event name", () => {
    expect(parseSse("data: a\ndata: b\n\n").messages).toEqual([{ id: null, event: "message", data: "a\nb" }]);
  });
});
