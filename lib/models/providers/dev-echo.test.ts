import { describe, expect, it } from "vitest";
import type { ModelDelta, ModelMessage, ModelRequest, ToolSpec } from "@/lib/models/provider";
import { DEV_ECHO_MARKER, DEV_ECHO_WARNING, createDevEchoProvider, echoArguments } from "@/lib/models/providers/dev-echo";

const provider = createDevEchoProvider();
const request = (messages: ModelMessage[], tools: ToolSpec[] = [], callIndex = 0): ModelRequest => ({ model: "dev-echo", messages, tools, callIndex });
const tool = (name: string, inputSchema: Record<string, unknown>): ToolSpec => ({ name, description: name, inputSchema });
const lookup = tool("kb.lookup", { type: "object", properties: { query: { type: "string" } }, required: ["query"] });

describe("dev-echo", () => {
  it("is the dev-echo kind", () => {
    expect(provider).toMatchObject({ id: "dev-echo", kind: "dev-echo" });
  });

  it("echoes the last user message with a warning when no tool is offered", async () => {
    const answer = await provider.complete(request([{ role: "system", content: "be nice" }, { role: "user", content: "first" }, { role: "assistant", content: "x" }, { role: "user", content: "hello" }]));
    expect(answer).toMatchObject({ text: `${DEV_ECHO_MARKER} hello`, toolCalls: [], costUsd: 0, attempts: 0, finishReason: "stop", warnings: [DEV_ECHO_WARNING] });
  });

  it("calls the first offered tool with the last user message", async () => {
    const answer = await provider.complete(request([{ role: "user", content: "what is kindgi?" }], [lookup, tool("other", {})], 2));
    expect(answer.toolCalls).toEqual([{ id: "call_2_0", name: "kb.lookup", arguments: { query: "what is kindgi?" } }]);
    expect(answer.finishReason).toBe("tool-calls");
    expect(answer.text).toContain(DEV_ECHO_MARKER);
    expect(answer.warnings).toEqual([DEV_ECHO_WARNING]);
  });

  it("answers with the tool's result once it is there", async () => {
    const messages: ModelMessage[] = [
      { role: "user", content: "what is kindgi?" },
      { role: "assistant", content: null, toolCalls: [{ id: "call_0_0", name: "kb.lookup", arguments: { query: "what is kindgi?" } }] },
      { role: "tool", toolCallId: "call_0_0", toolName: "kb.lookup", content: '{"answer":"an agent runtime"}' },
    ];
    const answer = await provider.complete(request(messages, [lookup], 1));
    expect(answer).toMatchObject({ text: `${DEV_ECHO_MARKER} {"answer":"an agent runtime"}`, toolCalls: [], finishReason: "stop" });
  });

  it("calls the tool again for a new user message after an earlier tool result", async () => {
    const messages: ModelMessage[] = [
      { role: "user", content: "one" },
      { role: "assistant", content: null, toolCalls: [{ id: "c", name: "kb.lookup", arguments: {} }] },
      { role: "tool", toolCallId: "c", toolName: "kb.lookup", content: "r" },
      { role: "assistant", content: "r" },
      { role: "user", content: "two" },
    ];
    const answer = await provider.complete(request(messages, [lookup]));
    expect(answer.toolCalls[0].arguments).toEqual({ query: "two" });
  });

  it("estimates usage at one token per 4 characters and costs nothing", async () => {
    const answer = await provider.complete(request([{ role: "user", content: "12345678" }]));
    expect(answer.usage).toEqual({ inputTokens: 2, outputTokens: Math.ceil(`${DEV_ECHO_MARKER} 12345678`.length / 4) });
    expect(answer.costUsd).toBe(0);
  });

  it("is deterministic", async () => {
    const req = request([{ role: "user", content: "same" }], [lookup]);
    expect(await provider.complete(req)).toEqual(await provider.complete(req));
  });

  it("still warns when there is no user message", async () => {
    const answer = await provider.complete(request([{ role: "system", content: "s" }]));
    expect(answer.text).toBe(DEV_ECHO_MARKER);
  });
});

describe("dev-echo: streaming", () => {
  const listen = () => {
    const deltas: ModelDelta[] = [];
    return { deltas, onDelta: (delta: ModelDelta) => deltas.push(structuredClone(delta)) };
  };

  it("says its text word by word, as attempt 1", async () => {
    const said = listen();
    const answer = await provider.complete({ ...request([{ role: "user", content: "  hello   wide world " }]), onDelta: said.onDelta });
    expect(said.deltas.length).toBeGreaterThan(3);
    expect(said.deltas.every((delta) => delta.attempt === 1 && delta.toolCalls === undefined)).toBe(true);
    expect(said.deltas.map((delta) => delta.text).join("")).toBe(answer.text);
    expect(said.deltas.at(-2)?.text).toBe("wide ");
  });

  it("says its tool call after the text: id, name and the JSON arguments in one piece", async () => {
    const said = listen();
    const answer = await provider.complete({ ...request([{ role: "user", content: "what is kindgi?" }], [lookup], 4), onDelta: said.onDelta });
    const last = said.deltas.at(-1);
    expect(last).toEqual({ attempt: 1, toolCalls: [{ index: 0, id: "call_4_0", name: "kb.lookup", argumentsDelta: '{"query":"what is kindgi?"}' }] });
    expect(JSON.parse(last?.toolCalls?.[0].argumentsDelta ?? "")).toEqual(answer.toolCalls[0].arguments);
    expect(said.deltas.slice(0, -1).map((delta) => delta.text).join("")).toBe(answer.text);
  });

  it("says the same deltas for the same request", async () => {
    const first = listen();
    const second = listen();
    await provider.complete({ ...request([{ role: "user", content: "same" }], [lookup]), onDelta: first.onDelta });
    await provider.complete({ ...request([{ role: "user", content: "same" }], [lookup]), onDelta: second.onDelta });
    expect(second.deltas).toEqual(first.deltas);
  });
});

describe("echoArguments", () => {
  it("fills the first required string property", () => {
    const schema = { properties: { limit: { type: "integer" }, a: { type: "string" }, b: { type: ["string", "null"] } }, required: ["limit", "b", "a"] };
    expect(echoArguments(tool("t", schema), "hi")).toEqual({ b: "hi" });
  });

  it("leaves an optional string property out: free text is not a value for it", () => {
    const clock = tool("current-time", { type: "object", properties: { timezone: { type: "string" } }, additionalProperties: false });
    expect(echoArguments(clock, "What time is it?")).toEqual({});
    expect(echoArguments(clock, '{"timezone": "Europe/Berlin"}')).toEqual({ timezone: "Europe/Berlin" });
  });

  it("uses a JSON object message as the arguments when no string property fits", () => {
    const schema = { properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a"] };
    expect(echoArguments(tool("t", schema), '{"a": 1, "b": 2}')).toEqual({ a: 1, b: 2 });
  });

  it("sends {} otherwise", () => {
    expect(echoArguments(tool("t", {}), "hi")).toEqual({});
    expect(echoArguments(tool("t", { properties: { a: { type: "string" }, b: { type: "string" } } }), "hi")).toEqual({});
    expect(echoArguments(tool("t", { properties: { n: { type: "number" } } }), "[1]")).toEqual({});
  });
});
