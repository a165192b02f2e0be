/**
 * `scripted`: a development provider (enabled by `KINDGI_DEV_PROVIDERS=1`, chosen with
 * `preferredProvider: "scripted"`) that lets tests and demos drive any kernel path over HTTP.
 *
 * The user message is JSON `{"script": [step, …]}`; model call n of the turn (`callIndex`) answers with step n:
 * `{"toolCalls": [{"name": "<tool id>", "arguments": …}, …], "usage"?, "costUsd"?}` or
 * `{"text": "…", "usage"?, "costUsd"?}`, with `usage` = `{"inputTokens", "outputTokens"}` (default 0 and 0 USD).
 * Past the last step it answers a final text saying the script is exhausted; a malformed script gets a final text
 * explaining the problem — never a throw. Tool call ids are `call_<callIndex>_<i>`; names and arguments are sent as
 * written (an unknown tool or invalid arguments reach the kernel as such, to drive those paths).
 *
 * The script is read from the last user message that is a JSON object with a `script` property, so a plain-text
 * user message the kernel adds within the turn (a typed-output repair prompt) does not hide it; when no user
 * message holds one, the answer explains what is wrong with the last user message. (A later plain-text turn in the
 * same conversation therefore replays the earlier script.)
 *
 * The answer streams through `onDelta`: the text, then each tool call's arguments (the JSON text of `arguments`, or
 * the string itself when `arguments` is a string), the first piece of a call carrying its id and name. A step may
 * add streaming controls, which change how the answer is said, never what it is:
 * - `"chunkSize"`: an integer >= 1; the text and each tool call's arguments are said in pieces of that many
 *   characters (code points). Without it the text is one piece and each call's arguments one piece.
 * - `"chunkDelayMs"`: an integer from 0 to 10000; the wait before each piece (an abort of the call ends the wait and
 *   rejects with the signal's reason).
 * - `"breakAfterChunks"`: an integer >= 1; attempt 1 says that many pieces (all, when there are fewer) and breaks,
 *   then attempt 2 says every piece, and the response reports `attempts: 2` (otherwise 0: no HTTP call is made).
 */
import type { ModelDelta, ModelMessage, ModelProvider, ModelRequest, ModelResponse, ModelUsage } from "@/lib/models/provider";
import { isRecord, sleep } from "@/lib/models/providers/shared";

/** How a step's answer is said through `onDelta` (see the file header). */
export type StreamControls = { chunkSize?: number; chunkDelayMs?: number; breakAfterChunks?: number };

/** One scripted answer. */
export type ScriptStep = ({ toolCalls: { name: string; arguments: unknown }[] } | { text: string }) & { usage?: ModelUsage; costUsd?: number } & StreamControls;

/** The warning every scripted response carries. */
export const SCRIPTED_WARNING = "scripted is not a real model: it answers from the script in the user message";

const EXPECTED =
  'Send {"script": [step, …]} where a step is {"toolCalls": [{"name": "<tool id>", "arguments": {…}}, …], "usage"?: {"inputTokens", "outputTokens"}, "costUsd"?} or {"text": "…", "usage"?, "costUsd"?}, either with optional streaming controls "chunkSize"?: <integer >= 1>, "chunkDelayMs"?: <integer 0..10000>, "breakAfterChunks"?: <integer >= 1>.';

/** The scripted provider. */
export function createScriptedProvider(): ModelProvider {
  return {
    id: "scripted",
    kind: "scripted",
    async complete(request) {
      const step = scriptedStep(request);
      const answer = respond(step, request.callIndex);
      const attempts = await speak(answer, step, request);
      return { ...answer, attempts };
    },
  };
}

/** The step that answers `request`: the script's, or a text explaining why there is none. */
function scriptedStep(request: ModelRequest): ScriptStep {
  const script = findScript(request.messages);
  if (typeof script === "string") return { text: `[scripted] the script is malformed: ${script}. ${EXPECTED}` };
  const step = script[request.callIndex];
  if (!step) return { text: `[scripted] the script is exhausted: it has ${script.length} step(s), and this is model call ${request.callIndex + 1} of the turn.` };
  return step;
}

/** Says `answer` through `onDelta` under the step's streaming controls; returns the attempts to report. */
async function speak(answer: ModelResponse, controls: StreamControls, request: ModelRequest): Promise<number> {
  const all = pieces(answer, controls.chunkSize);
  const say = async (piece: Omit<ModelDelta, "attempt">, attempt: number) => {
    if (controls.chunkDelayMs) await sleep(controls.chunkDelayMs, request.signal);
    request.onDelta?.({ attempt, ...piece });
  };
  if (controls.breakAfterChunks === undefined) {
    for (const piece of all) await say(piece, 1);
    return 0;
  }
  for (const piece of all.slice(0, controls.breakAfterChunks)) await say(piece, 1);
  for (const piece of all) await say(piece, 2);
  return 2;
}

/** The pieces `answer` is said in: its text, then each tool call's arguments, cut every `chunkSize` code points. */
function pieces(answer: ModelResponse, chunkSize: number | undefined): Omit<ModelDelta, "attempt">[] {
  const texts = answer.text ? cut(answer.text, chunkSize) : [];
  const calls = answer.toolCalls.flatMap((call, index) => {
    const text = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    const parts = text === "" ? [""] : cut(text, chunkSize);
    return parts.map((argumentsDelta, i) => ({ toolCalls: [i === 0 ? { index, id: call.id, name: call.name, argumentsDelta } : { index, argumentsDelta }] }));
  });
  return [...texts.map((text) => ({ text })), ...calls];
}

/** `text` in pieces of `size` code points (one piece without a size). */
function cut(text: string, size: number | undefined): string[] {
  if (size === undefined) return [text];
  const points = Array.from(text);
  const parts: string[] = [];
  for (let i = 0; i < points.length; i += size) parts.push(points.slice(i, i + size).join(""));
  return parts;
}

/** The steps of the last user message holding a script, or what is wrong with the last user message. */
function findScript(messages: ModelMessage[]): ScriptStep[] | string {
  const users = messages.flatMap((message) => (message.role === "user" ? [message.content] : []));
  const holder = users.findLast((content) => {
    const value = parseJson(content);
    return isRecord(value) && "script" in value;
  });
  if (holder !== undefined) return parseScript(holder);
  return users.length ? parseScript(users[users.length - 1]) : "there is no user message";
}

/** The steps of a script message, or a description of the first problem found. */
export function parseScript(text: string): ScriptStep[] | string {
  const value = parseJson(text);
  if (value === undefined) return "the user message is not JSON";
  if (!isRecord(value) || !Array.isArray(value.script)) return 'the user message is not a JSON object with a "script" array';
  const extra = Object.keys(value).filter((key) => key !== "script");
  if (extra.length) return `unknown property ${JSON.stringify(extra[0])} next to "script"`;
  const steps: ScriptStep[] = [];
  for (const [i, raw] of value.script.entries()) {
    const step = parseStep(raw);
    if (typeof step === "string") return `script[${i}]: ${step}`;
    steps.push(step);
  }
  return steps;
}

const STEP_KEYS = new Set(["toolCalls", "text", "usage", "costUsd", "chunkSize", "chunkDelayMs", "breakAfterChunks"]);

/** Each streaming control with its bounds and the sentence that explains a bad value. */
const CONTROLS = [
  { key: "chunkSize", min: 1, max: Number.MAX_SAFE_INTEGER, problem: '"chunkSize" must be an integer >= 1' },
  { key: "chunkDelayMs", min: 0, max: 10_000, problem: '"chunkDelayMs" must be an integer from 0 to 10000' },
  { key: "breakAfterChunks", min: 1, max: Number.MAX_SAFE_INTEGER, problem: '"breakAfterChunks" must be an integer >= 1' },
] as const;

function parseStep(raw: unknown): ScriptStep | string {
  if (!isRecord(raw)) return "a step must be an object";
  const unknown = Object.keys(raw).find((key) => !STEP_KEYS.has(key));
  if (unknown !== undefined) return `unknown property ${JSON.stringify(unknown)}`;
  if (("toolCalls" in raw) === ("text" in raw)) return 'a step has exactly one of "toolCalls" and "text"';
  const usage = raw.usage === undefined ? undefined : parseUsage(raw.usage);
  if (typeof usage === "string") return usage;
  if (raw.costUsd !== undefined && !(typeof raw.costUsd === "number" && Number.isFinite(raw.costUsd) && raw.costUsd >= 0)) return '"costUsd" must be a number >= 0';
  const controls: StreamControls = {};
  for (const { key, min, max, problem } of CONTROLS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) return problem;
    controls[key] = value;
  }
  const extras = { ...(usage && { usage }), ...(typeof raw.costUsd === "number" && { costUsd: raw.costUsd }), ...controls };
  if ("text" in raw) return typeof raw.text === "string" ? { text: raw.text, ...extras } : '"text" must be a string';
  const toolCalls = parseToolCalls(raw.toolCalls);
  return typeof toolCalls === "string" ? toolCalls : { toolCalls, ...extras };
}

function parseToolCalls(raw: unknown): { name: string; arguments: unknown }[] | string {
  if (!Array.isArray(raw) || raw.length === 0) return '"toolCalls" must be a non-empty array';
  const calls: { name: string; arguments: unknown }[] = [];
  for (const [i, call] of raw.entries()) {
    if (!isRecord(call) || typeof call.name !== "string" || call.name === "") return `toolCalls[${i}] must be {"name": "<tool id>", "arguments"?: …}`;
    const unknown = Object.keys(call).find((key) => key !== "name" && key !== "arguments");
    if (unknown !== undefined) return `toolCalls[${i}] has unknown property ${JSON.stringify(unknown)}`;
    calls.push({ name: call.name, arguments: call.arguments ?? {} });
  }
  return calls;
}

function parseUsage(raw: unknown): ModelUsage | string {
  const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
  if (!isRecord(raw) || !isCount(raw.inputTokens) || !isCount(raw.outputTokens) || Object.keys(raw).length !== 2) {
    return '"usage" must be {"inputTokens": <integer >= 0>, "outputTokens": <integer >= 0>}';
  }
  return { inputTokens: raw.inputTokens as number, outputTokens: raw.outputTokens as number };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function respond(step: ScriptStep, callIndex: number): ModelResponse {
  const toolCalls = "toolCalls" in step ? step.toolCalls.map((call, i) => ({ id: `call_${callIndex}_${i}`, name: call.name, arguments: call.arguments })) : [];
  return {
    text: "text" in step ? step.text : null,
    toolCalls,
    usage: step.usage ?? { inputTokens: 0, outputTokens: 0 },
    costUsd: step.costUsd ?? 0,
    warnings: [SCRIPTED_WARNING],
    attempts: 0,
    finishReason: toolCalls.length ? "tool-calls" : "stop",
  };
}
