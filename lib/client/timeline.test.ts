import { describe, expect, it } from "vitest";
import { axisTicks, buildTimeline } from "@/lib/client/timeline";
import type { RunEvent } from "@/lib/client/run-types";

const base = Date.parse("2026-01-01T00:00:00.000Z");
const ev = (seq: number, ms: number, type: string, data: Record<string, unknown> = {}): RunEvent => ({ seq, type, data, createdAt: new Date(base + ms).toISOString() });

describe("buildTimeline", () => {
  it("draws model calls from the previous step, parallel tool calls in parallel lanes, and the end", () => {
    const events = [
      ev(1, 0, "run-created"),
      ev(2, 10, "turn-started"),
      ev(3, 110, "model-called", { index: 0, toolCalls: [{}, {}], attempts: 2 }),
      ev(4, 120, "tool-call-started", { callId: "0.0", toolId: "a", version: "1.0.0" }),
      ev(5, 125, "tool-call-started", { callId: "0.1", toolId: "b", version: "2.0.0" }),
      ev(6, 200, "tool-call-completed", { callId: "0.1", toolId: "b", ok: false }),
      ev(7, 300, "tool-call-completed", { callId: "0.0", toolId: "a", ok: true }),
      ev(8, 400, "model-called", { index: 1, toolCalls: [], attempts: 1 }),
      ev(9, 405, "guardrail-flagged", { findings: [] }),
      ev(10, 410, "run-completed", { output: "x" }),
    ];
    const timeline = buildTimeline(events);
    expect(timeline.durationMs).toBe(410);
    expect(timeline.lanes.map((lane) => lane.label)).toEqual(["Model", "Tools 1", "Tools 2"]);
    const models = timeline.bars.filter((bar) => bar.kind === "model");
    expect(models.map((bar) => [bar.start, bar.end, bar.retries])).toEqual([[10, 110, 1], [300, 400, 0]]);
    const tools = timeline.bars.filter((bar) => bar.kind === "tool");
    expect(tools.map((bar) => [bar.label, bar.lane, bar.start, bar.end, bar.ok])).toEqual([["a@1.0.0", 1, 120, 300, true], ["b@2.0.0", 2, 125, 200, false]]);
    expect(timeline.markers.map((marker) => marker.kind)).toEqual(["retry", "guardrail", "completed"]);
  });

  it("reuses a lane once its call ended, keeps an unfinished call open to now, and puts waits in their own lane", () => {
    const events = [
      ev(1, 0, "run-created"),
      ev(2, 10, "tool-call-started", { callId: "0.0", toolId: "a", version: "1" }),
      ev(3, 20, "tool-call-completed", { callId: "0.0", toolId: "a", ok: true }),
      ev(4, 30, "tool-call-started", { callId: "1.0", toolId: "c", version: "1" }),
      ev(5, 40, "approval-requested", { approvalId: "p1" }),
      ev(6, 90, "approval-decided", { approvalId: "p1" }),
    ];
    const timeline = buildTimeline(events, base + 100);
    expect(timeline.lanes.map((lane) => lane.label)).toEqual(["Model", "Tools 1", "Waits"]);
    const open = timeline.bars.find((bar) => bar.label === "c@1")!;
    expect([open.lane, open.open, open.end]).toEqual([1, true, 100]);
    const wait = timeline.bars.find((bar) => bar.kind === "wait")!;
    expect([wait.lane, wait.start, wait.end, wait.open]).toEqual([2, 40, 90, false]);
  });
});

describe("buildTimeline with a model call being written", () => {
  it("draws it as an open model bar from the step before it to now, until its model-called event is journaled", () => {
    const events = [ev(1, 0, "run-created"), ev(2, 10, "turn-started")];
    const writing = buildTimeline(events, base + 250, { writingCallIndex: 0 });
    expect(writing.bars.map((bar) => [bar.kind, bar.label, bar.start, bar.end, bar.open, bar.seqs])).toEqual([["model", "Model call 1 (being written)", 10, 250, true, []]]);
    expect(writing.durationMs).toBe(250);
    const journaled = buildTimeline([...events, ev(3, 200, "model-called", { index: 0, toolCalls: [] })], base + 250, { writingCallIndex: 0 });
    expect(journaled.bars.map((bar) => [bar.label, bar.open])).toEqual([["Model call 1", false]]);
    const ended = buildTimeline([...events, ev(3, 200, "run-cancelled")], base + 250, { writingCallIndex: 0 });
    expect(ended.bars).toEqual([]);
  });
});

describe("axisTicks", () => {
  it("gives round steps covering the duration", () => {
    expect(axisTicks(1000)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(axisTicks(0)).toEqual([0]);
  });
});
