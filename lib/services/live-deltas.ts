/**
 * A model's words as they are written: the kernel publishes each delta of a model call on the event bus
 * (`delta:<runId>`), run streams relay them as ephemeral `model-delta` frames, and nothing of it is journaled (the
 * journal keeps one `model-called` per call). Every process keeps, from the bus, the text so far of each model call
 * in flight, so a client that joins mid-call — on any replica — first gets one snapshot of it.
 */
import { eventBus } from "@/lib/services/event-bus";
import type { RunDelta } from "@/lib/kernel/types";

/** A `model-delta` frame's data: a delta, or (`snapshot: true`) everything of the call's attempt so far. */
export type LiveDelta = RunDelta & { snapshot?: true };

type ToolCallSoFar = { index: number; id?: string; name?: string; arguments: string };
type InFlight = { callIndex: number; attempt: number; text: string; toolCalls: Map<number, ToolCallSoFar>; touchedAt: number; size: number };

/** How long a call's text is kept after its last delta (a call that ended, or whose worker died). */
const KEEP_MS = 120_000;
const MAX_RUNS = 2_000;
/** The most characters kept of one call (text and arguments); past it the call has no snapshot (its answer will come). */
const MAX_CALL_CHARS = 1_000_000;

type State = { calls: Map<string, InFlight>; tracking: boolean };
const state: State = ((globalThis as { [key: symbol]: State | undefined })[Symbol.for("kindgi.live-deltas")] ??= { calls: new Map(), tracking: false });

/** Publishes a delta of a run's model call (after the bus has it, it belongs to every replica's streams). */
export function publishDelta(runId: string, delta: RunDelta): void {
  trackDeltas();
  eventBus().publish(`delta:${runId}`, delta);
}

/** Whether `value` is a delta as published (what the bus carries is JSON from another process). */
export function isRunDelta(value: unknown): value is RunDelta {
  if (typeof value !== "object" || value === null) return false;
  const delta = value as Record<string, unknown>;
  return Number.isInteger(delta.callIndex) && Number.isInteger(delta.attempt);
}

/** Starts keeping the text so far of every model call in flight, from the bus (once per process). */
export function trackDeltas(): void {
  if (state.tracking) return;
  state.tracking = true;
  eventBus().subscribePrefix("delta:", (topic, message) => {
    if (message === null) return;
    if (isRunDelta(message)) remember(topic.slice("delta:".length), message);
  });
}

function remember(runId: string, delta: RunDelta): void {
  const now = Date.now();
  let call = state.calls.get(runId);
  if (!call || delta.callIndex > call.callIndex || (delta.callIndex === call.callIndex && delta.attempt > call.attempt)) {
    // A new call, or the call started over: what an earlier attempt wrote is void.
    call = { callIndex: delta.callIndex, attempt: delta.attempt, text: "", toolCalls: new Map(), touchedAt: now, size: 0 };
    state.calls.delete(runId);
    state.calls.set(runId, call);
    if (state.calls.size > MAX_RUNS) sweep(now);
  } else if (delta.callIndex < call.callIndex || delta.attempt < call.attempt) {
    return;
  }
  call.touchedAt = now;
  call.size += (delta.text?.length ?? 0) + (delta.toolCalls ?? []).reduce((sum, piece) => sum + piece.argumentsDelta.length, 0);
  if (call.size > MAX_CALL_CHARS) {
    call.text = "";
    call.toolCalls.clear();
    return;
  }
  if (delta.text) call.text += delta.text;
  for (const piece of delta.toolCalls ?? []) {
    const known = call.toolCalls.get(piece.index) ?? { index: piece.index, arguments: "" };
    if (piece.id !== undefined) known.id = piece.id;
    if (piece.name !== undefined) known.name = piece.name;
    known.arguments += piece.argumentsDelta;
    call.toolCalls.set(piece.index, known);
  }
}

function sweep(now: number): void {
  for (const [runId, call] of state.calls) {
    if (state.calls.size <= MAX_RUNS * 0.9 && now - call.touchedAt <= KEEP_MS) break;
    state.calls.delete(runId);
  }
}

/**
 * The text so far of the run's model call in flight, as one snapshot delta — when that call is at least
 * `fromCallIndex` (the calls before it are journaled) and was written to within the last two minutes.
 */
export function liveSnapshot(runId: string, fromCallIndex: number): LiveDelta | null {
  const call = state.calls.get(runId);
  if (!call || call.callIndex < fromCallIndex || call.size > MAX_CALL_CHARS || Date.now() - call.touchedAt > KEEP_MS) return null;
  const toolCalls = [...call.toolCalls.values()].sort((a, b) => a.index - b.index).map(({ index, id, name, arguments: args }) => ({ index, ...(id !== undefined && { id }), ...(name !== undefined && { name }), argumentsDelta: args }));
  return { callIndex: call.callIndex, attempt: call.attempt, snapshot: true, ...(call.text !== "" && { text: call.text }), ...(toolCalls.length > 0 && { toolCalls }) };
}
