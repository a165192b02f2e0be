import { describe, expect, it } from "vitest";
import { ServerSentEventDecoder, type ServerSentEvent } from "@/lib/models/providers/sse";

const bytes = (text: string) => Buffer.from(text, "utf8");

/** Every event of `chunks` fed in order, then the end. */
function decode(chunks: Uint8Array[]): ServerSentEvent[] {
  const decoder = new ServerSentEventDecoder();
  return [...chunks.flatMap((chunk) => decoder.push(chunk)), ...decoder.end()];
}

describe("ServerSentEventDecoder", () => {
  it("reads names, joins data lines, strips one leading space, and skips comments, ids, retries and unknown fields", () => {
    const stream = ": keep-alive\nevent: message_start\ndata: {\"a\":1}\n\nid: 7\nretry: 100\nfoo: bar\ndata:  two spaces\ndata:x\ndata\n\n";
    expect(decode([bytes(stream)])).toEqual([
      { event: "message_start", data: '{"a":1}' },
      { data: " two spaces\nx\n" },
    ]);
  });

  it("dispatches nothing for a blank line without data, and forgets the name of such an event", () => {
    expect(decode([bytes("event: ping\n\ndata: after\n\n")])).toEqual([{ data: "after" }]);
  });

  it("drops an event the stream ends inside of: it was cut", () => {
    expect(decode([bytes('data: {"complete":true}\n\ndata: {"cut":')])).toEqual([{ data: '{"complete":true}' }]);
    expect(decode([bytes("data: [DONE]\n")])).toEqual([]);
  });

  it("reads CRLF, LF and CR line ends, a CRLF split between two chunks counting once", () => {
    expect(decode([bytes("data: a\r"), bytes("\ndata: b\r\n\r\n")])).toEqual([{ data: "a\nb" }]);
    expect(decode([bytes("data: a\rdata: b\r\r")])).toEqual([{ data: "a\nb" }]);
    expect(decode([bytes("data: a\r\r\n")])).toEqual([{ data: "a" }]);
  });

  it("gives the same events whatever the chunk boundaries, inside UTF-8 characters and line ends included", () => {
    const stream = bytes(': hi\r\nevent: t\r\ndata: {"text":"café 日本 🎉"}\r\n\r\ndata: é\rdata: 🚀\r\rdata: 日\n\ndata: [DONE]\n\n');
    const whole = decode([stream]);
    expect(whole).toEqual([
      { event: "t", data: '{"text":"café 日本 🎉"}' },
      { data: "é\n🚀" },
      { data: "日" },
      { data: "[DONE]" },
    ]);
    for (let cut = 1; cut < stream.length; cut++) {
      for (let second = cut + 1; second <= stream.length; second += 7) {
        expect(decode([stream.subarray(0, cut), stream.subarray(cut, second), stream.subarray(second)])).toEqual(whole);
      }
    }
    expect(decode([...stream].map((byte) => Uint8Array.of(byte)))).toEqual(whole);
  });

  it("skips a byte order mark at the start", () => {
    expect(decode([Uint8Array.of(0xef, 0xbb), Uint8Array.of(0xbf), bytes("data: x\n\n")])).toEqual([{ data: "x" }]);
  });
});
