import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { eventBus } from "@/lib/services/event-bus";
import { liveSnapshot, publishDelta, trackDeltas } from "@/lib/services/live-deltas";

describe("the snapshot of a model call in flight", () => {
  it("holds the text and tool-call arguments so far, from what the bus carried", () => {
    trackDeltas();
    const runId = randomUUID();
    publishDelta(runId, { callIndex: 0, attempt: 1, text: "Hel" });
    // A delta another replica published reaches this process through the bus as well.
    eventBus().publish(`delta:${runId}`, { callIndex: 0, attempt: 1, text: "lo", toolCalls: [{ index: 0, id: "call_1", name: "acme.lookup", argumentsDelta: '{"wo' }] });
    publishDelta(runId, { callIndex: 0, attempt: 1, toolCalls: [{ index: 0, argumentsDelta: 'rd":"x"}' }] });
    expect(liveSnapshot(runId, 0)).toEqual({ callIndex: 0, attempt: 1, snapshot: true, text: "Hello", toolCalls: [{ index: 0, id: "call_1", name: "acme.lookup", argumentsDelta: '{"word":"x"}' }] });
  });

  it("starts over with a new attempt or a new call, and ignores a late delta of an earlier one", () => {
    trackDeltas();
    const runId = randomUUID();
    publishDelta(runId, { callIndex: 0, attempt: 1, text: "broken an" });
    publishDelta(runId, { callIndex: 0, attempt: 2, text: "whole" });
    publishDelta(runId, { callIndex: 0, attempt: 1, text: "d late" });
    expect(liveSnapshot(runId, 0)).toMatchObject({ attempt: 2, text: "whole" });
    publishDelta(runId, { callIndex: 1, attempt: 1, text: "next" });
    expect(liveSnapshot(runId, 0)).toMatchObject({ callIndex: 1, attempt: 1, text: "next" });
  });

  it("is none for a call already journaled and for an unknown run", () => {
    trackDeltas();
    const runId = randomUUID();
    publishDelta(runId, { callIndex: 2, attempt: 1, text: "x" });
    expect(liveSnapshot(runId, 3)).toBeNull();
    expect(liveSnapshot(randomUUID(), 0)).toBeNull();
  });

  it("is none for a call whose words outgrew what a process keeps (its journaled answer will come)", () => {
    trackDeltas();
    const runId = randomUUID();
    publishDelta(runId, { callIndex: 0, attempt: 1, text: "x".repeat(600_000) });
    expect(liveSnapshot(runId, 0)?.text).toHaveLength(600_000);
    publishDelta(runId, { callIndex: 0, attempt: 1, text: "y".repeat(600_000) });
    expect(liveSnapshot(runId, 0)).toBeNull();
  });
});
