import { describe, expect, it } from "vitest";
import type { ModelDelta, ModelMessage, ModelRequest } from "@/lib/models/provider";
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
    ["a zero chunk size", { script: [{ text: "a", chunkSize: 0 }] }, '"chunkSize" must be an integer >= 1'],
    ["a fractional chunk size", { script: [{ text: "a", chunkSize: 1.5 }] }, '"chunkSize" must be an integer >= 1'],
    ["a chunk size that is a string", { script: [{ text: "a", chunkSize: "2" }] }, '"chunkSize" must be an integer >= 1'],
    ["a negative chunk delay", { script: [{ text: "a", chunkDelayMs: -1 }] }, '"chunkDelayMs" must be an integer from 0 to 10000'],
    ["a chunk delay over 10 s", { script: [{ text: "a", chunkDelayMs: 10_001 }] }, '"chunkDelayMs" must be an integer from 0 to 10000'],
    ["a break after no chunk", { script: [{ text: "a", breakAfterChunks: 0 }] }, '"breakAfterChunks" must be an integer >= 1'],
    ["a misspelled streaming control", { script: [{ text: "a", chunksize: 2 }] }, 'unknown property "chunksize"'],
  ])("reports %s", (_name, value, message) => {
    expect(problem(value)).toContain(message);
  });

  it("accepts the streaming controls at their bounds", () => {
    expect(problem({ script: [{ text: "a", chunkSize: 1, chunkDelayMs: 10_000, breakAfterChunks: 1 }, { toolCalls: [{ name: "t" }], chunkDelayMs: 0 }] })).toEqual([
      { text: "a", chunkSize: 1, chunkDelayMs: 10_000, breakAfterChunks: 1 },
      { toolCalls: [{ name: "t", arguments: {} }], chunkDelayMs: 0 },
    ]);
  });

  it("reports text that is not JSON", () => {
    expect(parseScript("{script:")).toBe("the user message is not JSON");
  });
});

describe("scripted: streaming", () => {
  const listen = () => {
    const deltas: ModelDelta[] = [];
    return { deltas, onDelta: (delta: ModelDelta) => deltas.push(structuredClone(delta)) };
  };
  const ask = (step: Record<string, unknown>, onDelta?: (delta: ModelDelta) => void, signal?: AbortSignal): ModelRequest => ({ ...request([scriptMessage([step])]), onDelta, signal });
  const calls = { toolCalls: [{ name: "acme.search", arguments: { q: "日本 🎉" } }, { name: "nope", arguments: "not an object" }], usage: { inputTokens: 3, outputTokens: 4 } };
  const text = { text: "Grüße 🎉 done", costUsd: 0.5 };

  it("says the whole text as one piece, and each tool call's arguments as one piece with its id and name, by default", async () => {
    const said = listen();
    await provider.complete(ask(text, said.onDelta));
    expect(said.deltas).toEqual([{ attempt: 1, text: "Grüße 🎉 done" }]);
    const called = listen();
    await provider.complete(ask(calls, called.onDelta));
    expect(called.deltas).toEqual([
      { attempt: 1, toolCalls: [{ index: 0, id: "call_0_0", name: "acme.search", argumentsDelta: '{"q":"日本 🎉"}' }] },
      { attempt: 1, toolCalls: [{ index: 1, id: "call_0_1", name: "nope", argumentsDelta: "not an object" }] },
    ]);
  });

  it("cuts the text and the arguments into chunkSize code points, and answers as it would without the control", async () => {
    const said = listen();
    const answer = await provider.complete(ask({ ...text, chunkSize: 3 }, said.onDelta));
    expect(answer).toEqual(await provider.complete(ask(text)));
    expect(said.deltas.map((delta) => delta.text)).toEqual(["Grü", "ße ", "🎉 d", "one"]);
    const called = listen();
    const withCalls = await provider.complete(ask({ ...calls, chunkSize: 5 }, called.onDelta));
    expect(withCalls).toEqual(await provider.complete(ask(calls)));
    const pieces = called.deltas.flatMap((delta) => delta.toolCalls ?? []);
    expect(pieces.filter((piece) => piece.index === 0).map((piece) => piece.argumentsDelta)).toEqual(['{"q":', '"日本 🎉', '"}']);
    expect(pieces.filter((piece) => piece.id !== undefined)).toEqual([
      { index: 0, id: "call_0_0", name: "acme.search", argumentsDelta: '{"q":' },
      { index: 1, id: "call_0_1", name: "nope", argumentsDelta: "not a" },
    ]);
    expect(pieces.filter((piece) => piece.index === 1).map((piece) => piece.argumentsDelta).join("")).toBe("not an object");
    expect(called.deltas.every((delta) => delta.attempt === 1 && delta.text === undefined)).toBe(true);
  });

  it("waits chunkDelayMs before each piece", async () => {
    const said = listen();
    const times: number[] = [];
    const started = performance.now();
    await provider.complete(
      ask({ text: "abcdef", chunkSize: 2, chunkDelayMs: 40 }, (delta) => {
        times.push(performance.now() - started);
        said.onDelta(delta);
      }),
    );
    expect(said.deltas.map((delta) => delta.text)).toEqual(["ab", "cd", "ef"]);
    times.forEach((at, i) => expect(at).toBeGreaterThanOrEqual(40 * (i + 1) - 2));
  });

  it("breaks after breakAfterChunks pieces and says everything again as attempt 2, reporting 2 attempts", async () => {
    const said = listen();
    const answer = await provider.complete(ask({ ...text, chunkSize: 4, breakAfterChunks: 2 }, said.onDelta));
    expect(answer).toEqual({ ...(await provider.complete(ask(text))), attempts: 2 });
    expect(said.deltas).toEqual([
      { attempt: 1, text: "Grüß" },
      { attempt: 1, text: "e 🎉 " },
      { attempt: 2, text: "Grüß" },
      { attempt: 2, text: "e 🎉 " },
      { attempt: 2, text: "done" },
    ]);
    const whole = listen();
    expect(await provider.complete(ask({ ...calls, breakAfterChunks: 5 }, whole.onDelta))).toMatchObject({ attempts: 2, toolCalls: [{ id: "call_0_0" }, { id: "call_0_1" }] });
    expect(whole.deltas.map((delta) => delta.attempt)).toEqual([1, 1, 2, 2]);
  });

  it("rejects with the signal's reason when the call is aborted during a wait", async () => {
    const controller = new AbortController();
    const said = listen();
    const started = performance.now();
    const call = provider.complete(ask({ text: "abcdef", chunkSize: 1, chunkDelayMs: 10_000 }, said.onDelta, controller.signal));
    setTimeout(() => controller.abort(new Error("stopped by the user")), 30);
    await expect(call).rejects.toThrow("stopped by the user");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(said.deltas).toEqual([]);
  });

  it("says the explanation of a malformed script as one piece", async () => {
    const said = listen();
    const answer = await provider.complete({ ...request([{ role: "user", content: "hello" }]), onDelta: said.onDelta });
    expect(said.deltas).toEqual([{ attempt: 1, text: answer.text }]);
  });
});
