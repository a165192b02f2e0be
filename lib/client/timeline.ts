/**
 * The run timeline's geometry, from the journal alone: each model call as a bar from the end of the step before it to
 * its `model-called` event, each tool call as a bar from `tool-call-started` to `tool-call-completed` (parallel calls
 * in parallel lanes), waits (`wait-started` → `wait-completed`, `approval-requested` → `approval-decided`) as gaps,
 * and the rest (retries, repairs, guardrail findings, resumptions, the end) as markers. Times are ms from the start.
 * A model call being written (known from the stream, not yet journaled) is an open model bar up to `now`.
 */
import type { RunEvent } from "@/lib/client/run-types";

export type TimelineBar = {
  key: string;
  lane: number;
  kind: "model" | "tool" | "wait";
  label: string;
  start: number;
  end: number;
  /** Still in flight (no end event yet): drawn up to `now`. */
  open: boolean;
  ok: boolean;
  /** The events the bar stands for (start and end); none for a model call still being written. */
  seqs: number[];
  /** A model call that needed more than one attempt. */
  retries: number;
};

export type TimelineMarker = { key: string; lane: number; at: number; kind: "retry" | "guardrail" | "repair" | "resumed" | "completed" | "failed" | "cancelled" | "other"; label: string; seq: number };

export type Timeline = { lanes: { label: string }[]; bars: TimelineBar[]; markers: TimelineMarker[]; durationMs: number; startedAt: number };

const at = (event: RunEvent) => Date.parse(event.createdAt);

const MODEL_STEP_END = new Set(["turn-started", "model-called", "tool-call-completed", "output-repair-requested", "run-resumed", "wait-completed", "approval-decided"]);

export function buildTimeline(events: readonly RunEvent[], now: number = Date.now(), options: { writingCallIndex?: number | null } = {}): Timeline {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  if (sorted.length === 0) return { lanes: [{ label: "Model" }], bars: [], markers: [], durationMs: 0, startedAt: now };
  const t0 = at(sorted[0]);
  const ended = sorted.some((event) => event.type === "run-completed" || event.type === "run-failed" || event.type === "run-cancelled");
  const last = at(sorted[sorted.length - 1]);
  const end = ended ? last : Math.max(last, now);
  const rel = (t: number) => Math.max(0, t - t0);
  const endRel = rel(end);

  const bars: TimelineBar[] = [];
  const markers: TimelineMarker[] = [];
  // Lane 0: the model; lane 1…: tool calls; a wait lane is added last when there are waits.
  const toolLaneFree: number[] = [];
  const openCalls = new Map<string, TimelineBar>();
  const openWaits = new Map<string, TimelineBar>();
  let lastStepEnd = rel(at(sorted[0]));
  const waitLane = -1;

  for (const event of sorted) {
    const t = rel(at(event));
    const data = event.data ?? {};
    switch (event.type) {
      case "model-called": {
        const attempts = Number(data.attempts ?? 1);
        const calls = Array.isArray(data.toolCalls) ? data.toolCalls.length : 0;
        bars.push({
          key: `model-${event.seq}`,
          lane: 0,
          kind: "model",
          label: `Model call ${Number(data.index ?? 0) + 1}${calls ? ` → ${calls} tool call${calls > 1 ? "s" : ""}` : ""}`,
          start: Math.min(lastStepEnd, t),
          end: t,
          open: false,
          ok: true,
          seqs: [event.seq],
          retries: Math.max(0, attempts - 1),
        });
        if (attempts > 1) markers.push({ key: `retry-${event.seq}`, lane: 0, at: t, kind: "retry", label: `${attempts - 1} ${attempts - 1 === 1 ? "retry" : "retries"} before this answer`, seq: event.seq });
        break;
      }
      case "tool-call-started": {
        let lane = toolLaneFree.findIndex((freeAt) => freeAt <= t);
        if (lane < 0) {
          lane = toolLaneFree.length;
          toolLaneFree.push(Infinity);
        }
        toolLaneFree[lane] = Infinity;
        const bar: TimelineBar = { key: `tool-${String(data.callId)}-${event.seq}`, lane: lane + 1, kind: "tool", label: `${String(data.toolId)}@${String(data.version ?? "")}`, start: t, end: endRel, open: true, ok: true, seqs: [event.seq], retries: 0 };
        openCalls.set(String(data.callId), bar);
        bars.push(bar);
        break;
      }
      case "tool-call-completed": {
        const bar = openCalls.get(String(data.callId));
        if (bar) {
          bar.end = t;
          bar.open = false;
          bar.ok = data.ok !== false;
          bar.seqs.push(event.seq);
          toolLaneFree[bar.lane - 1] = t;
          openCalls.delete(String(data.callId));
        }
        break;
      }
      case "wait-started":
      case "approval-requested": {
        const id = String(data.callId ?? data.approvalId ?? data.waitId ?? event.seq);
        const bar: TimelineBar = { key: `wait-${id}-${event.seq}`, lane: waitLane, kind: "wait", label: event.type === "approval-requested" ? "Waiting for an approval" : `Waiting${data.reason ? `: ${String(data.reason)}` : ""}`, start: t, end: endRel, open: true, ok: true, seqs: [event.seq], retries: 0 };
        openWaits.set(id, bar);
        bars.push(bar);
        break;
      }
      case "wait-completed":
      case "approval-decided": {
        const id = String(data.callId ?? data.approvalId ?? data.waitId ?? "");
        const bar = openWaits.get(id) ?? [...openWaits.values()][0];
        if (bar) {
          bar.end = t;
          bar.open = false;
          bar.seqs.push(event.seq);
          openWaits.delete([...openWaits.entries()].find(([, value]) => value === bar)![0]);
        }
        break;
      }
      case "guardrail-flagged":
        markers.push({ key: `guard-${event.seq}`, lane: 0, at: t, kind: "guardrail", label: "Guardrail flagged the answer", seq: event.seq });
        break;
      case "output-repair-requested":
        markers.push({ key: `repair-${event.seq}`, lane: 0, at: t, kind: "repair", label: `Output repair ${String(data.attempt ?? "")} requested`, seq: event.seq });
        break;
      case "run-resumed":
        markers.push({ key: `resumed-${event.seq}`, lane: 0, at: t, kind: "resumed", label: "Run resumed by another worker", seq: event.seq });
        break;
      case "run-completed":
        markers.push({ key: `end-${event.seq}`, lane: 0, at: t, kind: "completed", label: "Run completed", seq: event.seq });
        break;
      case "run-failed":
        markers.push({ key: `end-${event.seq}`, lane: 0, at: t, kind: "failed", label: `Run failed: ${String((data.failure as { code?: string } | undefined)?.code ?? "")}`, seq: event.seq });
        break;
      case "run-cancelled":
        markers.push({ key: `end-${event.seq}`, lane: 0, at: t, kind: "cancelled", label: "Run cancelled", seq: event.seq });
        break;
      default:
        break;
    }
    if (MODEL_STEP_END.has(event.type)) lastStepEnd = t;
  }

  const writing = options.writingCallIndex;
  if (writing !== undefined && writing !== null && !ended && !sorted.some((event) => event.type === "model-called" && Number(event.data?.index) === writing)) {
    bars.push({ key: `model-writing-${writing}`, lane: 0, kind: "model", label: `Model call ${writing + 1} (being written)`, start: Math.min(lastStepEnd, endRel), end: endRel, open: true, ok: true, seqs: [], retries: 0 });
  }

  const lanes = [{ label: "Model" }, ...toolLaneFree.map((_, index) => ({ label: `Tools ${index + 1}` }))];
  const hasWaits = bars.some((bar) => bar.kind === "wait");
  if (hasWaits) {
    lanes.push({ label: "Waits" });
    for (const bar of bars) if (bar.kind === "wait") bar.lane = lanes.length - 1;
  }
  return { lanes, bars, markers, durationMs: endRel, startedAt: t0 };
}

/** Round tick positions for an axis of `durationMs` (about `count` of them). */
export function axisTicks(durationMs: number, count = 6): number[] {
  if (durationMs <= 0) return [0];
  const raw = durationMs / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = 0; t <= durationMs + 1e-9; t += step) ticks.push(Math.round(t));
  return ticks;
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}
