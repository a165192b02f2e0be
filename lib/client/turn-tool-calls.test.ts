import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/lib/client/run-types";
import { turnToolCalls } from "@/lib/client/turn-tool-calls";

const ev = (seq: number, type: string, data: Record<string, unknown> = {}): RunEvent => ({ seq, type, data, createdAt: "2026-01-01T00:00:00.000Z" });

describe("turnToolCalls", () => {
  it("shows each call the model asked for, then what became of it", () => {
    const events = [
      ev(3, "model-called", { index: 0, text: null, toolCalls: [{ id: "a", name: "acme.lookup", arguments: { word: "apple" } }, { id: "b", name: "acme.pay", arguments: { payee: "x" } }] }),
      ev(4, "tool-call-started", { callId: "0.0", toolId: "acme.lookup", version: "1.2.0", arguments: { word: "apple" } }),
    ];
    expect(turnToolCalls(events).map((call) => [call.callId, call.toolId, call.version, call.status])).toEqual([
      ["0.0", "acme.lookup", "1.2.0", "running"],
      ["0.1", "acme.pay", null, "asked"],
    ]);
    const later = [
      ...events,
      ev(5, "tool-call-completed", { callId: "0.0", toolId: "acme.lookup", ok: true, output: {}, durationMs: 12 }),
      ev(6, "approval-requested", { kind: "tool-call", callId: "0.1", toolId: "acme.pay", version: "2.0.0" }),
    ];
    expect(turnToolCalls(later).map((call) => [call.status, call.durationMs, call.version])).toEqual([["returned", 12, "1.2.0"], ["waiting-approval", null, "2.0.0"]]);
    const decided = [
      ...later,
      ev(7, "approval-decided", { callId: "0.1", decision: "approved" }),
      ev(8, "tool-call-started", { callId: "0.1", toolId: "acme.pay", version: "2.0.0", arguments: { payee: "y" } }),
      ev(9, "tool-call-completed", { callId: "0.1", toolId: "acme.pay", ok: false, error: { kind: "tool-error", message: "no" }, durationMs: 3 }),
    ];
    const last = turnToolCalls(decided)[1];
    expect(last).toMatchObject({ status: "failed", arguments: { payee: "y" }, error: { kind: "tool-error", message: "no" } });
  });

  it("marks the calls the run's end left unfinished as stopped", () => {
    const events = [
      ev(3, "model-called", { index: 0, toolCalls: [{ name: "acme.lookup", arguments: {} }, { name: "acme.pay", arguments: {} }] }),
      ev(4, "tool-call-started", { callId: "0.0", toolId: "acme.lookup", version: "1.0.0", arguments: {} }),
      ev(5, "tool-call-completed", { callId: "0.0", toolId: "acme.lookup", ok: true, durationMs: 5 }),
      ev(6, "tool-call-started", { callId: "0.1", toolId: "acme.pay", version: "1.0.0", arguments: {} }),
      ev(7, "run-cancelled"),
    ];
    expect(turnToolCalls(events).map((call) => call.status)).toEqual(["returned", "stopped"]);
  });

  it("ignores session approvals and answers without tool calls", () => {
    expect(turnToolCalls([ev(2, "approval-requested", { kind: "session", callId: "session" }), ev(3, "model-called", { index: 0, text: "hi", toolCalls: [] })])).toEqual([]);
  });
});
