import { describe, expect, it } from "vitest";
import type { ModelMessage, ModelRequest } from "@/lib/models/provider";
import { SCRIPTED_WARNING, createScriptedProvider, parseScript } from "@/lib/models/providers/scripted";

const provider = createScriptedProvider();
const request = (messages: ModelMessage[], callIndex = 0): ModelRequest => ({ model: "scripted", messages, tools: [], callIndex });
const scriptMessage = (script: unknown): ModelMessage => ({ role: "user", content: JSON.stringify({ script }) });

const script = [
  { toolCalls: [{ name: "acme.search", arguments: { q: "x" } }, { name: "acme.fetch" }], usage: { inputTokens: 10, outputTokens: 3 }, costUsd: 0.01 },
  { text: "done" },
];

describe("scripted", () => {
  it("is the scripted kind", () => {
    expect(provider).toMatchObject({ id: "scripted", kind: "scripted" });
  });

  it("answers model call n with step n: tool calls with deterministic ids, usage and cost from the step", async () => {
    const answer = await provider.complete(request([scriptMessage(script)], 0));
    expect(answer).toEqual({
      text: null,
      toolCalls: [
        { id: "call_0_0", name: "acme.search", arguments: { q: "x" } },
        { id: "call_0_1", name: "acme.fetch", arguments: {} },
      ],
      usage: { inputTokens: 10, outputTokens: 3 },
      costUsd: 0.01,
      warnings: [SCRIPTED_WARNING],
      attempts: 0,
      finishReason: "tool-calls",
    });
  });

  it("answers a text step verbatim, with zero usage and cost by default", async () => {
    const answer = await provider.complete(request([scriptMessage(script)], 1));
    expect(answer).toMatchObject({ text: "done", toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, finishReason: "stop" });
  });

  it("says the script is exhausted past the last step", async () => {
    const answer = await provider.complete(request([scriptMessage(script)], 2));
    expect(answer.text).toBe("[scripted] the script is exhausted: it has 2 step(s), and this is model call 3 of the turn.");
    expect(answer.finishReason).toBe("stop");
  });

  it("passes unknown tool names and any arguments through, to drive those kernel paths", async () => {
    const answer = await provider.complete(request([scriptMessage([{ toolCalls: [{ name: "nope", arguments: "not an object" }] }])], 0));
    expect(answer.toolCalls).toEqual([{ id: "call_0_0", name: "nope", arguments: "not an object" }]);
  });

  it("reads the last user message holding a script, skipping plain-text messages added within the turn", async () => {
    const messages: ModelMessage[] = [
      scriptMessage([{ text: "old" }]),
      scriptMessage([{ text: "not json" }, { text: '{"ok":true}' }]),
      { role: "assistant", content: "not json" },
      { role: "user", content: "Your answer did not match the output schema: …" },
    ];
    expect((await provider.complete(request(messages, 1))).text).toBe('{"ok":true}');
  });

  it("explains a malformed script in a final text instead of throwing", async () => {
    const answer = await provider.complete(request([{ role: "user", content: "hello" }]));
    expect(answer.text).toMatch(/^\[scripted\] the script is malformed: the user message is not JSON\. Send \{"script"/);
    expect(answer).toMatchObject({ toolCalls: [], finishReason: "stop", warnings: [SCRIPTED_WARNING] });
  });

  it("explains a missing user message", async () => {
    expect((await provider.complete(request([]))).text).toContain("there is no user message");
  });
});

describe("parseScript", () => {
  const problem = (value: unknown) => parseScript(JSON.stringify(value));

  it("accepts every step form, including an empty script", () => {
    expect(problem({ script: script })).toEqual([
      { toolCalls: [{ name: "acme.search", arguments: { q: "x" } }, { name: "acme.fetch", arguments: {} }], usage: { inputTokens: 10, outputTokens: 3 }, costUsd: 0.01 },
      { text: "done" },
    ]);
    expect(problem({ script: [] })).toEqual([]);
  });

  it.each([
    ["not an object", [1], "the user message is not a JSON object"],
    ["no script array", { script: {} }, 'not a JSON object with a "script" array'],
    ["an extra top-level property", { script: [], x: 1 }, 'unknown property "x" next to "script"'],
    ["a step that is not an object", { script: ["hi"] }, "script[0]: a step must be an object"],
    ["a step with both forms", { script: [{ text: "a", toolCalls: [{ name: "t" }] }] }, 'script[0]: a step has exactly one of "toolCalls" and "text"'],
    ["a step with neither form", { script: [{ usage: { inputTokens: 1, outputTokens: 1 } }] }, "exactly one of"],
    ["a misspelled property", { script: [{ text: "a" }, { toolcalls: [] }] }, 'script[1]: unknown property "toolcalls"'],
    ["a text that is not a string", { script: [{ text: 1 }] }, '"text" must be a string'],
    ["empty toolCalls", { script: [{ toolCalls: [] }] }, '"toolCalls" must be a non-empty array'],
    ["a tool call without a name", { script: [{ toolCalls: [{ arguments: {} }] }] }, "toolCalls[0] must be"],
    ["a tool call with an extra property", { script: [{ toolCalls: [{ name: "t", args: {} }] }] }, 'toolCalls[0] has unknown property "args"'],
    ["negative usage", { script: [{ text: "a", usage: { inputTokens: -1, outputTokens: 0 } }] }, '"usage" must be'],
    ["fractional usage", { script: [{ text: "a", usage: { inputTokens: 1.5, outputTokens: 0 } }] }, '"usage" must be'],
    ["incomplete usage", { script: [{ text: "a", usage: { inputTokens: 1 } }] }, '"usage" must be'],
    ["negative cost", { script: [{ text: "a", costUsd: -0.1 }] }, '"costUsd" must be a number >= 0'],
  ])("reports %s", (_name, value, message) => {
    expect(problem(value)).toContain(message);
  });

  it("reports text that is not JSON", () => {
    expect(parseScript("{script:")).toBe("the user message is not JSON");
  });
});
