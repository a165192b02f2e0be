/**
 * A run's answer as it is written. GET /v1/runs/{id}/stream interleaves its journaled events with `model-delta`
 * frames (no `id:`, never journaled): pieces of model call `callIndex`'s answer — text, and tool calls whose JSON
 * arguments arrive a few characters at a time.
 *
 * The rules, as the stream states them:
 * - a delta with `snapshot: true` (the first a client gets when it joins during a call) replaces what was had for
 *   that call; ordinary deltas append;
 * - a delta whose `attempt` is larger than the call's starts the call over (the earlier attempt's pieces are void);
 *   one whose attempt is smaller is stale and ignored;
 * - the journaled `model-called` event of that index ends the call in flight: from then on the journal's answer is
 *   the one shown (its text may be null, withheld by a guardrail), and late pieces of that call are ignored;
 * - the run's end stops everything: a call still being written when the run is cancelled or fails keeps its text,
 *   marked as stopped; pieces after the end are ignored.
 */
import { isTerminalEventType, type RunEvent } from "@/lib/client/run-types";

/** A tool call's piece in a delta: `index` is its position among the answer's tool calls; `name` is a tool id. */
export type ToolCallPiece = { index: number; id?: string; name?: string; argumentsDelta: string };

/** The data of a `model-delta` frame. */
export type ModelDelta = { callIndex: number; attempt: number; text?: string; toolCalls?: ToolCallPiece[]; snapshot?: boolean };

/** A tool call as it forms: `arguments` is the JSON text so far (usually not parseable until the call is whole). */
export type LiveToolCall = { index: number; id: string | null; name: string | null; arguments: string };

/** A model call being written. */
export type LiveCall = { callIndex: number; attempt: number; text: string; toolCalls: LiveToolCall[] };

export type LiveAnswer = {
  /** Model calls being written (no `model-called` event yet), by `callIndex`. */
  calls: LiveCall[];
  /** Indexes whose `model-called` event arrived: the journal holds their answer. */
  journaled: number[];
  /** How the run ended, once its terminal event arrived; the calls left then were stopped mid-answer. */
  ended: "completed" | "cancelled" | "failed" | null;
};

export const emptyLiveAnswer: LiveAnswer = { calls: [], journaled: [], ended: null };

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0;

/** The data of a `model-delta` frame, or null when it is not one (a malformed frame is skipped, never fatal). */
export function parseModelDelta(data: string): ModelDelta | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const raw = value as Record<string, unknown>;
  if (!isCount(raw.callIndex) || !isCount(raw.attempt)) return null;
  if (raw.text !== undefined && typeof raw.text !== "string") return null;
  const delta: ModelDelta = { callIndex: raw.callIndex, attempt: raw.attempt };
  if (typeof raw.text === "string") delta.text = raw.text;
  if (raw.snapshot === true) delta.snapshot = true;
  if (raw.toolCalls !== undefined) {
    if (!Array.isArray(raw.toolCalls)) return null;
    const pieces: ToolCallPiece[] = [];
    for (const item of raw.toolCalls as unknown[]) {
      if (typeof item !== "object" || item === null) return null;
      const call = item as Record<string, unknown>;
      if (!isCount(call.index)) return null;
      const piece: ToolCallPiece = { index: call.index, argumentsDelta: typeof call.argumentsDelta === "string" ? call.argumentsDelta : "" };
      if (typeof call.id === "string") piece.id = call.id;
      if (typeof call.name === "string") piece.name = call.name;
      pieces.push(piece);
    }
    delta.toolCalls = pieces;
  }
  return delta;
}

function appendPieces(call: LiveCall, delta: ModelDelta): LiveCall {
  const toolCalls = [...call.toolCalls];
  for (const piece of delta.toolCalls ?? []) {
    const at = toolCalls.findIndex((each) => each.index === piece.index);
    const before = at >= 0 ? toolCalls[at] : { index: piece.index, id: null, name: null, arguments: "" };
    const after: LiveToolCall = { index: piece.index, id: piece.id ?? before.id, name: piece.name ?? before.name, arguments: before.arguments + piece.argumentsDelta };
    if (at >= 0) toolCalls[at] = after;
    else toolCalls.push(after);
  }
  toolCalls.sort((a, b) => a.index - b.index);
  return { ...call, text: call.text + (delta.text ?? ""), toolCalls };
}

/** A `model-delta` frame applied to the answer. */
export function applyModelDelta(state: LiveAnswer, delta: ModelDelta): LiveAnswer {
  if (state.ended || state.journaled.includes(delta.callIndex)) return state;
  const existing = state.calls.find((call) => call.callIndex === delta.callIndex);
  if (existing && !delta.snapshot && delta.attempt < existing.attempt) return state;
  const startsOver = !existing || delta.snapshot || delta.attempt > existing.attempt;
  const base: LiveCall = startsOver ? { callIndex: delta.callIndex, attempt: delta.attempt, text: "", toolCalls: [] } : existing;
  const next = appendPieces(base, delta);
  // Calls run one after another: a piece of call n means the calls before it have ended (their model-called event
  // came first on the stream, or will be read from the journal).
  const calls = [...state.calls.filter((call) => call.callIndex > delta.callIndex), next].sort((a, b) => a.callIndex - b.callIndex);
  return { ...state, calls };
}

/** A journaled event applied to the answer: `model-called` ends its call; the run's end stops the rest. */
export function applyRunEvent(state: LiveAnswer, event: RunEvent): LiveAnswer {
  if (event.type === "model-called") {
    const index = Number(event.data?.index);
    if (!isCount(index)) return state;
    return { ...state, calls: state.calls.filter((call) => call.callIndex !== index), journaled: state.journaled.includes(index) ? state.journaled : [...state.journaled, index] };
  }
  if (isTerminalEventType(event.type)) {
    const ended = event.type === "run-completed" ? "completed" : event.type === "run-cancelled" ? "cancelled" : "failed";
    return { ...state, ended, calls: ended === "completed" ? [] : state.calls };
  }
  return state;
}

export type LiveAnswerInput = { kind: "event"; event: RunEvent } | { kind: "delta"; delta: ModelDelta };

/** The reducer over the stream: journaled events and `model-delta` frames, in the order they came. */
export function reduceLiveAnswer(state: LiveAnswer, input: LiveAnswerInput): LiveAnswer {
  return input.kind === "event" ? applyRunEvent(state, input.event) : applyModelDelta(state, input.delta);
}

/** The call being written now (the latest one), or null. */
export function writingCall(state: LiveAnswer): LiveCall | null {
  return state.calls.length ? state.calls[state.calls.length - 1] : null;
}

/** True when the run ended (cancelled or failed) while this answer's last call was still being written. */
export function isStopped(state: LiveAnswer): boolean {
  return (state.ended === "cancelled" || state.ended === "failed") && state.calls.length > 0;
}
