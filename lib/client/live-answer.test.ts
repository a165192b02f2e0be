import { describe, expect, it } from "vitest";
import { applyModelDelta, applyRunEvent, emptyLiveAnswer, isStopped, parseModelDelta, reduceLiveAnswer, writingCall, type LiveAnswer, type LiveAnswerInput, type ModelDelta } from "@/lib/client/live-answer";
import type { RunEvent } from "@/lib/client/run-types";

const event = (seq: number, type: string, data: Record<string, unknown> = {}): LiveAnswerInput => ({ kind: "event", event: { seq, type, data, createdAt: "2026-01-01T00:00:00.000Z" } as RunEvent });
const delta = (value: ModelDelta): LiveAnswerInput => ({ kind: "delta", delta: value });
const run = (inputs: LiveAnswerInput[], from: LiveAnswer = emptyLiveAnswer) => inputs.reduce(reduceLiveAnswer, from);

describe("the answer as it is written", () => {
  it("appends text pieces in order to the call they belong to", () => {
    const state = run([event(1, "run-created"), event(2, "turn-started"), delta({ callIndex: 0, attempt: 1, text: "The qu" }), delta({ callIndex: 0, attempt: 1, text: "ick br" }), delta({ callIndex: 0, attempt: 1, text: "own fox" })]);
    expect(state.calls).toEqual([{ callIndex: 0, attempt: 1, text: "The quick brown fox", toolCalls: [] }]);
    expect(writingCall(state)?.text).toBe("The quick brown fox");
    expect(state.ended).toBeNull();
  });

  it("lets a snapshot replace what was had for its call, then appends after it", () => {
    const state = run([delta({ callIndex: 1, attempt: 1, text: "Hel" }), delta({ callIndex: 1, attempt: 1, text: "lo, wo", toolCalls: [{ index: 0, name: "acme.lookup", argumentsDelta: '{"w' }], snapshot: true }), delta({ callIndex: 1, attempt: 1, text: "rld" })]);
    expect(state.calls).toEqual([{ callIndex: 1, attempt: 1, text: "lo, world", toolCalls: [{ index: 0, id: null, name: "acme.lookup", arguments: '{"w' }] }]);
  });

  it("starts a call over when a piece of a later attempt comes, and ignores stale pieces of the earlier one", () => {
    const state = run([
      delta({ callIndex: 0, attempt: 1, text: "Once upon", toolCalls: [{ index: 0, id: "c1", name: "acme.lookup", argumentsDelta: '{"word":' }] }),
      delta({ callIndex: 0, attempt: 2, text: "Hello" }),
      delta({ callIndex: 0, attempt: 1, text: " a time" }),
      delta({ callIndex: 0, attempt: 2, text: " again" }),
    ]);
    expect(state.calls).toEqual([{ callIndex: 0, attempt: 2, text: "Hello again", toolCalls: [] }]);
  });

  it("gives way to the journal when the call's model-called event arrives, and ignores that call's late pieces", () => {
    const writing = run([delta({ callIndex: 0, attempt: 1, text: "Let me look" }), delta({ callIndex: 0, attempt: 1, toolCalls: [{ index: 0, name: "acme.lookup", argumentsDelta: "{}" }] })]);
    const called = run([event(3, "model-called", { index: 0, text: "Let me look that up.", toolCalls: [{ id: "c", name: "acme.lookup", arguments: {} }] }), delta({ callIndex: 0, attempt: 1, text: " up." })], writing);
    expect(called.calls).toEqual([]);
    expect(called.journaled).toEqual([0]);
    expect(writingCall(called)).toBeNull();
    // The next call streams on its own; a guardrail that withholds it (text null) leaves nothing of the streamed text.
    const next = run([delta({ callIndex: 1, attempt: 1, text: "secret" }), event(6, "model-called", { index: 1, text: null, textWithheld: true }), event(7, "run-failed", { failure: { code: "guardrail-violation" } })], called);
    expect(next.calls).toEqual([]);
    expect(next.ended).toBe("failed");
    expect(isStopped(next)).toBe(false);
  });

  it("assembles a tool call's name, id and JSON arguments across many pieces, several calls side by side", () => {
    const argumentsText = '{"word":"serendipity","language":"en"}';
    const inputs: LiveAnswerInput[] = [delta({ callIndex: 0, attempt: 1, toolCalls: [{ index: 0, id: "call_0_0", name: "acme.lookup", argumentsDelta: "" }] })];
    for (let at = 0; at < argumentsText.length; at += 3) inputs.push(delta({ callIndex: 0, attempt: 1, toolCalls: [{ index: 0, argumentsDelta: argumentsText.slice(at, at + 3) }] }));
    inputs.push(delta({ callIndex: 0, attempt: 1, toolCalls: [{ index: 1, name: "acme.define", argumentsDelta: '{"w' }] }));
    inputs.push(delta({ callIndex: 0, attempt: 1, toolCalls: [{ index: 1, argumentsDelta: '":1}' }] }));
    const midway = run(inputs.slice(0, 5));
    expect(writingCall(midway)?.toolCalls).toEqual([{ index: 0, id: "call_0_0", name: "acme.lookup", arguments: argumentsText.slice(0, 12) }]);
    const state = run(inputs);
    expect(writingCall(state)?.toolCalls).toEqual([
      { index: 0, id: "call_0_0", name: "acme.lookup", arguments: argumentsText },
      { index: 1, id: null, name: "acme.define", arguments: '{"w":1}' },
    ]);
    expect(JSON.parse(writingCall(state)!.toolCalls[0].arguments)).toEqual({ word: "serendipity", language: "en" });
  });

  it("keeps the text of a call stopped by a cancellation, marked as stopped, and ignores pieces after the end", () => {
    const state = run([delta({ callIndex: 0, attempt: 1, text: "The answer is" }), event(4, "run-cancelled"), delta({ callIndex: 0, attempt: 1, text: " 42" })]);
    expect(state.ended).toBe("cancelled");
    expect(writingCall(state)?.text).toBe("The answer is");
    expect(isStopped(state)).toBe(true);
    expect(applyRunEvent(state, { seq: 5, type: "run-completed", data: {}, createdAt: "" }).calls).toEqual([]);
  });

  it("treats a piece of a later call as the end of the calls before it", () => {
    const state = run([delta({ callIndex: 0, attempt: 1, text: "first" }), delta({ callIndex: 1, attempt: 1, text: "second" })]);
    expect(state.calls.map((call) => call.callIndex)).toEqual([1]);
  });

  it("returns the same state for events that change nothing", () => {
    const state = run([delta({ callIndex: 0, attempt: 1, text: "a" })]);
    expect(applyRunEvent(state, { seq: 9, type: "tool-logged", data: {}, createdAt: "" })).toBe(state);
    expect(applyModelDelta({ ...state, ended: "cancelled" }, { callIndex: 0, attempt: 1, text: "b" }).calls[0].text).toBe("a");
  });
});

describe("parseModelDelta", () => {
  it("reads the frame's data and skips what is not one", () => {
    expect(parseModelDelta('{"callIndex":2,"attempt":1,"text":"Hi","snapshot":true}')).toEqual({ callIndex: 2, attempt: 1, text: "Hi", snapshot: true });
    expect(parseModelDelta('{"callIndex":0,"attempt":1,"toolCalls":[{"index":0,"id":"c","name":"acme.lookup","argumentsDelta":"{\\""}]}')).toEqual({ callIndex: 0, attempt: 1, toolCalls: [{ index: 0, id: "c", name: "acme.lookup", argumentsDelta: '{"' }] });
    expect(parseModelDelta("not json")).toBeNull();
    expect(parseModelDelta('{"attempt":1,"text":"x"}')).toBeNull();
    expect(parseModelDelta('{"callIndex":0,"attempt":1,"text":5}')).toBeNull();
    expect(parseModelDelta('{"callIndex":0,"attempt":1,"toolCalls":[{"argumentsDelta":"x"}]}')).toBeNull();
  });
});
