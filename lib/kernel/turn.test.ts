import { describe, expect, it, vi } from "vitest";
import type { AgentDefinition } from "@/lib/agents/validate-agent";
import type { ScriptStep } from "@/lib/models/providers/scripted";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { idempotencyKeyOf } from "@/lib/kernel/journal";
import { advanceRun, LeaseLost, type AdvanceOutcome, type TurnContext } from "@/lib/kernel/turn";
import { KernelWorker } from "@/lib/kernel/worker";
import type { JournalEvent, RunFailure, ToolCallResult } from "@/lib/kernel/types";
import { createManualClock, createMemoryStore, type MemoryStore } from "@/lib/kernel/testing/memory-store";
import {
  abortableDelay,
  createMemoryEnvironment,
  type MemoryEnvironment,
  type MemoryGuardrail,
  type MemoryTool,
  type MemoryToolHandler,
  type ToolInvocationRecord,
} from "@/lib/kernel/testing/memory-environment";

const OWNER = "worker-a";
const LEASE_MS = 30_000;

const agentOf = (overrides: Partial<AgentDefinition> = {}): AgentDefinition => ({
  id: "test.agent",
  version: "1.0.0",
  name: "Tester",
  instructions: "Answer briefly.",
  capabilities: [{ kind: "llm-inference" }],
  tools: [],
  retrieval: [],
  guardrails: [],
  ...overrides,
});

const manifestOf = (id: string, overrides: Partial<ToolManifest> = {}): ToolManifest => ({
  id,
  version: "1.0.0",
  description: `the ${id} tool`,
  input: { type: "object", properties: { n: { type: "integer", default: 1 } }, additionalProperties: false },
  output: { type: "object" },
  ...overrides,
});

const toolOf = (id: string, handler: MemoryToolHandler, overrides: Partial<ToolManifest> = {}): MemoryTool => ({ manifest: manifestOf(id, overrides), handler });

const ok = (output: unknown): ToolCallResult => ({ ok: true, output });

/** A promise a test settles when it wants to. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { opened, open };
}

type Setup = { clock: ReturnType<typeof createManualClock>; store: MemoryStore; env: MemoryEnvironment; agent: AgentDefinition };

function setup(options: { agent?: Partial<AgentDefinition>; tools?: MemoryTool[]; guardrails?: MemoryGuardrail[] } = {}): Setup {
  const clock = createManualClock();
  const store = createMemoryStore({ clock });
  const agent = agentOf(options.agent);
  const env = createMemoryEnvironment({ agents: [agent], tools: options.tools, guardrails: options.guardrails, clock, conversations: store });
  return { clock, store, env, agent };
}

/** A pending run of the setup's agent, leased to OWNER, whose user message is the scripted provider's script. */
function startRun({ store, agent }: Setup, script: ScriptStep[], options: { conversationId?: string } = {}): string {
  return store.createRun({ agent: { id: agent.id, version: agent.version }, userMessage: JSON.stringify({ script }), owner: OWNER, leaseMs: LEASE_MS, ...options }).id;
}

const contextOf = ({ store, env }: Setup, owner = OWNER, signal = new AbortController().signal): TurnContext => ({ store, env, owner, signal });

/** Advances the run as a worker does until it is settled; the outcome of every step, in order. */
async function drive(s: Setup, runId: string, ctx: TurnContext = contextOf(s)): Promise<AdvanceOutcome[]> {
  const outcomes: AdvanceOutcome[] = [];
  while (outcomes.length < 50) {
    outcomes.push(await advanceRun(ctx, runId));
    if (outcomes[outcomes.length - 1] === "settled") return outcomes;
  }
  throw new Error("the run did not settle in 50 steps");
}

const typesOf = (store: MemoryStore, runId: string) => store.events(runId).map((event) => event.type);

function eventsOfType<T extends JournalEvent["type"]>(store: MemoryStore, runId: string, type: T): Extract<JournalEvent, { type: T }>[] {
  return store.events(runId).filter((event): event is Extract<JournalEvent, { type: T }> => event.type === type);
}

function failureOf(store: MemoryStore, runId: string): RunFailure {
  const run = store.run(runId);
  expect(run.status).toBe("failed");
  const [failed] = eventsOfType(store, runId, "run-failed");
  expect(failed.data.failure).toEqual(run.failure);
  return run.failure as RunFailure;
}

/** The messages of the n-th model request (0-based). */
const requestMessages = (env: MemoryEnvironment, n: number) => env.modelRequests[n].request.messages;

const overlap = (a: ToolInvocationRecord, b: ToolInvocationRecord) => a.startTick < (b.endTick as number) && b.startTick < (a.endTick as number);

describe("memory store", () => {
  it("commits all or nothing, numbers events without gaps, and refuses a writer without the lease", async () => {
    const { store } = setup();
    const runId = store.createRun({ agent: { id: "a", version: "1.0.0" }, userMessage: "hi", owner: OWNER }).id;
    await expect(store.commit(runId, OWNER, async () => { throw new Error("plan failed"); })).rejects.toThrow("plan failed");
    expect(store.run(runId).lastSeq).toBe(1);
    const resumed = { type: "run-resumed" as const, data: { worker: OWNER, previousWorker: null } };
    expect(await store.commit(runId, OWNER, async () => ({ events: [resumed, resumed], patch: { addToolCalls: 2 } }))).toEqual([2, 3]);
    expect(await store.commit(runId, "someone-else", async () => ({ events: [resumed], patch: { status: "failed" } }))).toBeNull();
    expect(store.events(runId).map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(store.run(runId)).toMatchObject({ lastSeq: 3, toolCalls: 2, status: "pending" });
  });

  it("a finished status frees the lease and ends writing; leases expire by the clock and are claimed oldest first", async () => {
    const { store, clock } = setup();
    const first = store.createRun({ agent: { id: "a", version: "1.0.0" }, userMessage: "1", owner: OWNER, leaseMs: 1_000 }).id;
    clock.advance(1);
    const second = store.createRun({ agent: { id: "a", version: "1.0.0" }, userMessage: "2", owner: OWNER, leaseMs: 1_000 }).id;
    expect(await store.claim("b", 1_000, 10)).toEqual([]);
    clock.advance(1_000);
    expect(await store.claim("b", 1_000, 1)).toEqual([{ id: first, previousOwner: OWNER }]);
    expect(await store.renewLease(first, OWNER, 1_000)).toBe(false);
    const done = { type: "run-completed" as const, data: { output: "x" } };
    expect(await store.commit(second, OWNER, async () => ({ events: [done], patch: { status: "completed", output: "x" } }))).toEqual([2]);
    expect(store.run(second)).toMatchObject({ status: "completed", leaseOwner: null, leaseExpiresAt: null, output: "x" });
    expect(await store.commit(second, OWNER, async () => ({ events: [done] }))).toBeNull();
    clock.advance(10_000);
    expect(await store.claim("c", 1_000, 10)).toEqual([{ id: first, previousOwner: "b" }]);
  });
});

describe("advanceRun", () => {
  it("a text answer completes the turn: journal, run row and conversation", async () => {
    const s = setup();
    const conversationId = s.store.createConversation([{ role: "user", content: "earlier" }, { role: "assistant", content: "reply" }]);
    const runId = startRun(s, [{ text: "hello there", usage: { inputTokens: 7, outputTokens: 3 }, costUsd: 0.002 }], { conversationId });
    expect(await drive(s, runId)).toEqual(["continue", "settled"]);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "run-completed"]);
    const [started] = eventsOfType(s.store, runId, "turn-started");
    expect(started.data).toMatchObject({ agent: { id: "test.agent", version: "1.0.0", name: "Tester" }, provider: { id: "scripted", model: "scripted" }, instructions: "Answer briefly.", history: [{ role: "user", content: "earlier" }, { role: "assistant", content: "reply" }] });
    expect(started.data.deadline).toBe(new Date(s.clock.now().getTime() + 120_000).toISOString());
    expect(eventsOfType(s.store, runId, "run-completed")[0].data).toEqual({ output: "hello there" });
    expect(s.store.run(runId)).toMatchObject({
      status: "completed",
      output: "hello there",
      failure: null,
      startedAt: s.clock.now(),
      finishedAt: s.clock.now(),
      providerId: "scripted",
      model: "scripted",
      resolvedTools: [],
      inputTokens: 7,
      outputTokens: 3,
      costUsd: 0.002,
      modelCalls: 1,
      toolCalls: 0,
      leaseOwner: null,
      lastSeq: 4,
    });
    expect(s.store.conversationMessages(conversationId).slice(2)).toEqual([
      { seq: 3, role: "user", content: JSON.stringify({ script: [{ text: "hello there", usage: { inputTokens: 7, outputTokens: 3 }, costUsd: 0.002 }] }), runId },
      { seq: 4, role: "assistant", content: "hello there", runId },
    ]);
    expect(requestMessages(s.env, 0).map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    await expect(advanceRun(contextOf(s), runId)).rejects.toBeInstanceOf(LeaseLost);
  });

  it("a tool call runs once with its idempotency key, its result goes back to the model, then the answer completes", async () => {
    const handler = vi.fn<MemoryToolHandler>(async (input) => ok({ doubled: (input as { n: number }).n * 2 }));
    const s = setup({ agent: { tools: [{ id: "calc", version: "^1.0.0" }] }, tools: [toolOf("calc", handler)] });
    const runId = startRun(s, [{ toolCalls: [{ name: "calc", arguments: { n: 21 } }] }, { text: "42" }]);
    expect(await drive(s, runId)).toEqual(["continue", "continue", "continue", "settled"]);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "tool-call-started", "tool-call-completed", "model-called", "run-completed"]);
    expect(s.env.invocationsOf("calc")).toMatchObject([{ callId: "0.0", idempotencyKey: idempotencyKeyOf(runId, "0.0"), input: { n: 21 }, result: ok({ doubled: 42 }) }]);
    expect(eventsOfType(s.store, runId, "tool-call-started")[0].data).toEqual({ callId: "0.0", toolId: "calc", version: "1.0.0", arguments: { n: 21 }, idempotencyKey: idempotencyKeyOf(runId, "0.0") });
    expect(eventsOfType(s.store, runId, "tool-call-completed")[0].data).toMatchObject({ callId: "0.0", toolId: "calc", ok: true, output: { doubled: 42 } });
    expect(requestMessages(s.env, 1).at(-1)).toEqual({ role: "tool", toolCallId: "call_0_0", toolName: "calc", content: '{"doubled":42}' });
    expect(s.env.modelRequests[0].request.tools).toEqual([{ name: "calc", description: "the calc tool", inputSchema: manifestOf("calc").input }]);
    expect(s.store.run(runId)).toMatchObject({ status: "completed", output: "42", modelCalls: 2, toolCalls: 1, resolvedTools: [{ id: "calc", range: "^1.0.0", version: "1.0.0" }] });
  });

  it("an unknown tool is sent back to the model once; the second call to it fails the turn (unresolved-tool)", async () => {
    const s = setup();
    const runId = startRun(s, [{ toolCalls: [{ name: "nope", arguments: {} }] }, { toolCalls: [{ name: "nope", arguments: {} }] }, { text: "never" }]);
    await drive(s, runId);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "tool-call-completed", "model-called", "tool-call-completed", "run-failed"]);
    expect(requestMessages(s.env, 1).at(-1)).toMatchObject({ role: "tool", toolName: "nope", content: expect.stringContaining('"kind":"unknown-tool"') });
    expect(failureOf(s.store, runId)).toMatchObject({ code: "unresolved-tool", details: { callId: "1.0", toolId: "nope", kind: "unknown-tool", retriesUsed: 1 } });
    expect(s.env.modelRequests).toHaveLength(2);
    expect(s.store.run(runId)).toMatchObject({ toolCalls: 2, modelCalls: 2, output: null, leaseOwner: null });
  });

  it("invalid arguments never reach the tool: sent back once, then a second failure fails the turn (tool-invocation-failed)", async () => {
    const handler = vi.fn<MemoryToolHandler>(async () => ok({}));
    const tools = [toolOf("calc", handler)];
    const agent = { tools: [{ id: "calc", version: "1.0.0" }] };
    const recovered = setup({ agent, tools });
    const recoveredRun = startRun(recovered, [{ toolCalls: [{ name: "calc", arguments: { n: "two" } }] }, { toolCalls: [{ name: "calc", arguments: {} }] }, { text: "done" }]);
    await drive(recovered, recoveredRun);
    expect(recovered.store.run(recoveredRun)).toMatchObject({ status: "completed", output: "done" });
    expect(eventsOfType(recovered.store, recoveredRun, "tool-call-completed").map((event) => event.data)).toMatchObject([{ callId: "0.0", ok: false, error: { kind: "invalid-arguments" } }, { callId: "1.0", ok: true }]);
    // Defaults are filled before the call.
    expect(handler.mock.calls.map(([input]) => input)).toEqual([{ n: 1 }]);

    const failing = setup({ agent, tools });
    const failingRun = startRun(failing, [{ toolCalls: [{ name: "calc", arguments: { n: "two" } }] }, { toolCalls: [{ name: "calc", arguments: { extra: true } }] }, { text: "never" }]);
    await drive(failing, failingRun);
    expect(failureOf(failing.store, failingRun)).toMatchObject({ code: "tool-invocation-failed", details: { callId: "1.0", kind: "invalid-arguments", retriesUsed: 1 } });
    expect(eventsOfType(failing.store, failingRun, "tool-call-started")).toEqual([]);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("a tool error fails the turn unless retryOn names it; a thrown handler and an output off its schema are tool errors", async () => {
    const broken = toolOf("flaky", async () => ({ ok: false, error: { kind: "tool-error", message: "upstream is down" } }));
    const strict = setup({ agent: { tools: [{ id: "flaky", version: "^1" }] }, tools: [broken] });
    const strictRun = startRun(strict, [{ toolCalls: [{ name: "flaky", arguments: {} }] }, { text: "never" }]);
    await drive(strict, strictRun);
    expect(failureOf(strict.store, strictRun)).toMatchObject({ code: "tool-invocation-failed", message: expect.stringContaining("tool-error is not in toolErrors.retryOn"), details: { callId: "0.0", kind: "tool-error", retriesUsed: 0 } });
    expect(strict.env.modelRequests).toHaveLength(1);

    const throwing = toolOf("thrower", async () => {
      throw new Error("handler crashed");
    });
    const offSchema = toolOf("liar", async () => ok({ n: "not a number" }), { output: { type: "object", properties: { n: { type: "number" } } } });
    const lenient = setup({
      agent: { tools: [{ id: "flaky", version: "^1" }, { id: "thrower", version: "^1" }, { id: "liar", version: "^1" }], toolErrors: { retryOn: ["tool-error"], maxRetries: 3 } },
      tools: [broken, throwing, offSchema],
    });
    const lenientRun = startRun(lenient, [{ toolCalls: [{ name: "flaky", arguments: {} }, { name: "thrower", arguments: {} }, { name: "liar", arguments: {} }] }, { text: "recovered" }]);
    await drive(lenient, lenientRun);
    expect(lenient.store.run(lenientRun)).toMatchObject({ status: "completed", output: "recovered" });
    const errors = eventsOfType(lenient.store, lenientRun, "tool-call-completed").map((event) => (event.data.ok ? null : event.data.error));
    expect(errors).toEqual([
      { kind: "tool-error", message: "upstream is down" },
      { kind: "tool-error", message: "the tool failed: handler crashed" },
      { kind: "tool-error", message: expect.stringContaining("does not match its output schema") },
    ]);
    expect(requestMessages(lenient.env, 1).filter((message) => message.role === "tool")).toHaveLength(3);
  });

  it("maxSteps: the turn fails before a model call past the budget", async () => {
    const s = setup({ agent: { tools: [{ id: "calc", version: "^1" }], budget: { maxSteps: 2 } }, tools: [toolOf("calc", async () => ok({}))] });
    const loop = { toolCalls: [{ name: "calc", arguments: {} }] };
    const runId = startRun(s, [loop, loop, loop, { text: "never" }]);
    await drive(s, runId);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "budget-exceeded", details: { kind: "steps", limit: 2, used: 2 } });
    expect(s.env.modelRequests).toHaveLength(2);
    expect(s.env.invocationsOf("calc")).toHaveLength(2);
    expect(typesOf(s.store, runId).at(-2)).toBe("tool-call-completed");
  });

  it("maxCostUsd: the call that goes over is journaled and counted, then the turn fails", async () => {
    const s = setup({ agent: { tools: [{ id: "calc", version: "^1" }], budget: { maxCostUsd: 0.05 } }, tools: [toolOf("calc", async () => ok({}))] });
    const runId = startRun(s, [{ toolCalls: [{ name: "calc", arguments: {} }], costUsd: 0.03 }, { text: "too expensive", costUsd: 0.03 }]);
    await drive(s, runId);
    expect(typesOf(s.store, runId).slice(-2)).toEqual(["model-called", "run-failed"]);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "budget-exceeded", details: { kind: "cost", limit: 0.05, spentUsd: 0.06 } });
    expect(s.store.run(runId)).toMatchObject({ modelCalls: 2, costUsd: 0.06, output: null });
  });

  it("wall clock: a step after the deadline fails the turn without performing it", async () => {
    const handler = vi.fn<MemoryToolHandler>(async () => ok({}));
    const s = setup({ agent: { tools: [{ id: "calc", version: "^1" }], budget: { maxWallMs: 60_000 } }, tools: [toolOf("calc", handler)] });
    const runId = startRun(s, [{ toolCalls: [{ name: "calc", arguments: {} }] }, { text: "never" }]);
    const ctx = contextOf(s);
    expect(await advanceRun(ctx, runId)).toBe("continue");
    s.clock.advance(59_999);
    expect(await advanceRun(ctx, runId)).toBe("continue");
    s.clock.advance(1);
    expect(await advanceRun(ctx, runId)).toBe("settled");
    expect(failureOf(s.store, runId)).toMatchObject({ code: "budget-exceeded", details: { kind: "wall-clock", limit: 60_000 } });
    expect(handler).not.toHaveBeenCalled();
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "run-failed"]);
  });

  it("wall clock: a tool still running at the deadline is aborted and the turn fails", async () => {
    let signal: AbortSignal | undefined;
    const slow = toolOf("slow", async (_input, context) => {
      signal = context.signal;
      await abortableDelay(30_000, context.signal);
      return ok({});
    });
    const s = setup({ agent: { tools: [{ id: "slow", version: "^1" }], budget: { maxWallMs: 150 } }, tools: [slow] });
    const runId = startRun(s, [{ toolCalls: [{ name: "slow", arguments: {} }] }, { text: "never" }]);
    const began = performance.now();
    await drive(s, runId);
    expect(performance.now() - began).toBeLessThan(5_000);
    expect(signal?.aborted).toBe(true);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "budget-exceeded", details: { kind: "wall-clock", limit: 150 } });
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "tool-call-started", "run-failed"]);
  });

  const verdict = { name: "verdict", schema: { type: "object", required: ["verdict"], properties: { verdict: { enum: ["yes", "no"] } }, additionalProperties: false } };

  it("typed output: an answer off the schema gets a repair round, then the repaired answer completes as JSON", async () => {
    const s = setup({ agent: { output: verdict } });
    const conversationId = s.store.createConversation();
    const runId = startRun(s, [{ text: "maybe" }, { text: '```json\n{"verdict":"yes"}\n```' }], { conversationId });
    await drive(s, runId);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "output-repair-requested", "model-called", "run-completed"]);
    expect(eventsOfType(s.store, runId, "output-repair-requested")[0].data).toEqual({ attempt: 1, issues: [{ path: "", message: "the answer is not JSON" }] });
    expect(requestMessages(s.env, 1).slice(-2)).toEqual([{ role: "assistant", content: "maybe" }, { role: "user", content: expect.stringContaining("not a valid verdict") }]);
    expect(s.env.modelRequests[0].request.responseFormat).toEqual({ type: "json", schema: verdict.schema, name: "verdict" });
    expect(s.store.run(runId)).toMatchObject({ status: "completed", output: { verdict: "yes" }, modelCalls: 2 });
    expect(s.store.conversationMessages(conversationId)[1]).toMatchObject({ role: "assistant", content: '{"verdict":"yes"}' });
  });

  it("typed output: still off the schema after maxRepairs fails the turn (output-schema-violation)", async () => {
    const s = setup({ agent: { output: verdict } });
    const runId = startRun(s, [{ text: "maybe" }, { text: '{"verdict":"perhaps"}' }, { text: '{"verdict":"yes"}' }]);
    await drive(s, runId);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "output-schema-violation", details: { repairs: 1, issues: [{ path: "/verdict" }] } });
    expect(s.env.modelRequests).toHaveLength(2);
  });

  const denyHalt: MemoryGuardrail = { id: "no-secrets", version: "1.2.0", definition: { id: "no-secrets", version: "1.2.0", name: "No secrets", action: "halt", check: { kind: "deny-terms", terms: ["password"] } } };

  it("a halting guardrail fails the turn and the answer is stored nowhere", async () => {
    const s = setup({ agent: { guardrails: ["no-secrets"] }, guardrails: [denyHalt] });
    const conversationId = s.store.createConversation();
    const answer = "the password is hunter2";
    const runId = startRun(s, [{ text: answer }], { conversationId });
    await drive(s, runId);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "guardrail-violation", details: { findings: [{ guardrailId: "no-secrets", version: "1.2.0", action: "halt", check: "deny-terms" }] } });
    expect(eventsOfType(s.store, runId, "model-called")[0].data).toMatchObject({ text: null, textWithheld: true });
    expect(eventsOfType(s.store, runId, "turn-started")[0].data.guardrails).toEqual([{ id: "no-secrets", version: "1.2.0" }]);
    // Only the user's message (the script) holds it.
    expect(JSON.stringify(s.store.events(runId).slice(1))).not.toContain("hunter2");
    const { output, failure, flags } = s.store.run(runId);
    expect(JSON.stringify({ output, failure, flags })).not.toContain("hunter2");
    expect(s.store.conversationMessages(conversationId)).toEqual([]);
  });

  it("the final answer is checked against the guardrail versions of turn start, even after a change mid-turn", async () => {
    const s = setup({ agent: { guardrails: ["no-secrets"], tools: [{ id: "calc", version: "^1" }] }, guardrails: [denyHalt], tools: [toolOf("calc", async () => ok({}))] });
    const runId = startRun(s, [{ toolCalls: [{ name: "calc", arguments: {} }] }, { text: "the password is hunter2" }]);
    const ctx = contextOf(s);
    expect(await advanceRun(ctx, runId)).toBe("continue"); // turn-started records no-secrets@1.2.0
    // A newer version that would let the answer through replaces it mid-turn.
    s.env.guardrails.set("no-secrets", { id: "no-secrets", version: "1.3.0", evaluate: () => [] });
    await drive(s, runId, ctx);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "unresolved-guardrail", details: { missing: ["no-secrets@1.2.0"] } });
    expect(JSON.stringify(s.store.events(runId).slice(1))).not.toContain("hunter2");

    const kept = setup({ agent: { guardrails: ["no-secrets"], tools: [{ id: "calc", version: "^1" }] }, guardrails: [denyHalt], tools: [toolOf("calc", async () => ok({}))] });
    const second = startRun(kept, [{ toolCalls: [{ name: "calc", arguments: {} }] }, { text: "the password is hunter2" }]);
    await drive(kept, second);
    expect(failureOf(kept.store, second)).toMatchObject({ code: "guardrail-violation" });
  });

  it("a flagging guardrail lets the answer stand and records the finding", async () => {
    const flag: MemoryGuardrail = { id: "short", version: "1.0.0", evaluate: (text) => (text.length > 5 ? [{ guardrailId: "short", version: "1.0.0", action: "flag", check: "max-length", message: "too long" }] : []) };
    const s = setup({ agent: { guardrails: ["short", "no-secrets"] }, guardrails: [flag, denyHalt] });
    const runId = startRun(s, [{ text: "a long answer" }]);
    await drive(s, runId);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "guardrail-flagged", "run-completed"]);
    const findings = [{ guardrailId: "short", version: "1.0.0", action: "flag", check: "max-length", message: "too long" }];
    expect(eventsOfType(s.store, runId, "guardrail-flagged")[0].data).toEqual({ findings });
    expect(s.store.run(runId)).toMatchObject({ status: "completed", output: "a long answer", flags: findings });
  });

  it("a guardrail that is not registered fails the turn at start, before any model call", async () => {
    const s = setup({ agent: { guardrails: ["no-secrets", "missing.one"], tools: [{ id: "calc", version: "^1" }] }, guardrails: [denyHalt], tools: [toolOf("calc", async () => ok({}))] });
    const runId = startRun(s, [{ text: "never" }]);
    expect(await drive(s, runId)).toEqual(["settled"]);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "run-failed"]);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "unresolved-guardrail", details: { missing: ["missing.one"] } });
    expect(s.store.run(runId)).toMatchObject({ startedAt: s.clock.now(), finishedAt: s.clock.now(), resolvedTools: [{ id: "calc", version: "1.0.0" }] });
    expect(s.env.modelRequests).toEqual([]);
  });

  it("a tool range without an active version fails the turn at start (tool-version-unresolvable)", async () => {
    const retired: MemoryTool = { ...toolOf("calc", async () => ok({}), { version: "2.0.0" }), active: false };
    const s = setup({ agent: { tools: [{ id: "calc", version: "^2.0.0" }] }, tools: [toolOf("calc", async () => ok({})), retired] });
    const runId = startRun(s, [{ text: "never" }]);
    expect(await drive(s, runId)).toEqual(["settled"]);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "tool-version-unresolvable", details: { toolId: "calc", range: "^2.0.0", available: ["1.0.0"] } });
    expect(s.env.modelRequests).toEqual([]);
  });

  it("read-only calls of one step run together; a mutating call runs alone", async () => {
    const slowly = (name: string): MemoryToolHandler => async (_input, context) => {
      await abortableDelay(40, context.signal);
      return ok({ name });
    };
    const tools = [toolOf("read.a", slowly("a"), { mutating: false }), toolOf("read.b", slowly("b"), { mutating: false }), toolOf("write", slowly("w"), { mutating: true }), toolOf("read.c", slowly("c"), { mutating: false })];
    const calls = ["read.a", "read.b", "write", "read.c"].map((name) => ({ name, arguments: {} }));
    const refs = ["read.a", "read.b", "write", "read.c"].map((id) => ({ id, version: "^1" }));

    const parallel = setup({ agent: { tools: refs }, tools });
    const parallelRun = startRun(parallel, [{ toolCalls: calls }, { text: "done" }]);
    await drive(parallel, parallelRun);
    expect(parallel.store.run(parallelRun).status).toBe("completed");
    const [a, b, w, c] = ["read.a", "read.b", "write", "read.c"].map((id) => parallel.env.invocationsOf(id)[0]);
    expect(overlap(a, b)).toBe(true);
    expect([a, b, c].some((read) => overlap(read, w))).toBe(false);
    expect(w.startTick).toBeGreaterThan(Math.max(a.endTick as number, b.endTick as number));
    expect(c.startTick).toBeGreaterThan(w.endTick as number);
    // Results go back in the calls' order, whatever order they finished in.
    expect(requestMessages(parallel.env, 1).filter((message) => message.role === "tool").map((message) => message.content)).toEqual(['{"name":"a"}', '{"name":"b"}', '{"name":"w"}', '{"name":"c"}']);

    const serial = setup({ agent: { tools: refs, parallelToolCalls: false }, tools });
    const serialRun = startRun(serial, [{ toolCalls: calls }, { text: "done" }]);
    await drive(serial, serialRun);
    const records = serial.env.invocations;
    expect(records).toHaveLength(4);
    expect(records.some((x, i) => records.some((y, j) => i !== j && overlap(x, y)))).toBe(false);
  });

  it("crash and resume: another worker takes the expired lease, the dead worker's late commit is refused, and the run completes once", async () => {
    const stalled = gate();
    const fast = vi.fn<MemoryToolHandler>(async () => ok({ fast: true }));
    const slow = vi.fn<MemoryToolHandler>(async (_input, context) => {
      if (context.attempt === 1) await stalled.opened;
      return ok({ by: context.attempt === 1 ? "dead worker" : "second worker" });
    });
    const s = setup({
      agent: { tools: [{ id: "fast", version: "^1" }, { id: "slow", version: "^1" }] },
      tools: [toolOf("fast", fast, { mutating: false }), toolOf("slow", slow, { mutating: true })],
    });
    const runId = startRun(s, [{ toolCalls: [{ name: "fast", arguments: { n: 1 } }, { name: "slow", arguments: { n: 2 } }] }, { text: "all done" }]);

    // Worker A starts the turn and is inside the slow call when it stalls.
    const a = contextOf(s);
    expect(await advanceRun(a, runId)).toBe("continue");
    expect(await advanceRun(a, runId)).toBe("continue");
    const stuck = advanceRun(a, runId);
    await vi.waitFor(() => expect(slow).toHaveBeenCalledTimes(1));
    expect(eventsOfType(s.store, runId, "tool-call-completed").map((event) => event.data.callId)).toEqual(["0.0"]);

    // Its lease expires and worker B claims the run.
    const b = new KernelWorker(s.store, s.env, { leaseMs: LEASE_MS, pollMs: 1_000, concurrency: 4 });
    expect(await s.store.claim(b.id, LEASE_MS, 10)).toEqual([]);
    s.clock.advance(LEASE_MS + 1);
    expect(await s.store.claim(b.id, LEASE_MS, 10)).toEqual([{ id: runId, previousOwner: OWNER }]);

    // A wakes up: its result is not journaled.
    const before = s.store.events(runId).length;
    stalled.open();
    await expect(stuck).rejects.toBeInstanceOf(LeaseLost);
    expect(s.store.events(runId)).toHaveLength(before);

    await b.execute(runId, { resumedFrom: OWNER });
    const run = s.store.run(runId);
    expect(run).toMatchObject({ status: "completed", output: "all done", leaseOwner: null, modelCalls: 2, toolCalls: 2 });
    expect(s.store.events(runId).map((event) => event.seq)).toEqual(Array.from({ length: run.lastSeq }, (_, i) => i + 1));
    expect(typesOf(s.store, runId)).toEqual([
      "run-created",
      "turn-started",
      "model-called",
      "tool-call-started",
      "tool-call-completed",
      "tool-call-started",
      "run-resumed",
      "tool-call-started",
      "tool-call-completed",
      "model-called",
      "run-completed",
    ]);
    expect(eventsOfType(s.store, runId, "run-resumed")[0].data).toEqual({ worker: b.id, previousWorker: OWNER });
    expect(fast).toHaveBeenCalledTimes(1);
    expect(s.env.invocationsOf("slow").map((record) => record.idempotencyKey)).toEqual([idempotencyKeyOf(runId, "0.1"), idempotencyKeyOf(runId, "0.1")]);
    expect(eventsOfType(s.store, runId, "tool-call-completed").map((event) => event.data)).toMatchObject([
      { callId: "0.0", ok: true, output: { fast: true } },
      { callId: "0.1", ok: true, output: { by: "second worker" } },
    ]);
    expect(JSON.stringify(s.store.events(runId))).not.toContain("dead worker");
    expect(requestMessages(s.env, 1).filter((message) => message.role === "tool").map((message) => message.content)).toEqual(['{"fast":true}', '{"by":"second worker"}']);
  });

  it("cancel: the worker's next commit is refused (LeaseLost) and nothing more is written", async () => {
    const inFlight = gate();
    const handler = vi.fn<MemoryToolHandler>(async () => {
      await inFlight.opened;
      return ok({});
    });
    const s = setup({ agent: { tools: [{ id: "calc", version: "^1" }] }, tools: [toolOf("calc", handler)] });
    const runId = startRun(s, [{ toolCalls: [{ name: "calc", arguments: {} }] }, { text: "never" }]);
    const ctx = contextOf(s);
    await advanceRun(ctx, runId);
    await advanceRun(ctx, runId);
    const step = advanceRun(ctx, runId);
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(1));

    expect(await s.store.cancel(runId, "user-1")).toBe(true);
    const afterCancel = s.store.events(runId);
    expect(afterCancel.at(-1)).toMatchObject({ type: "run-cancelled", data: { by: "user-1" } });
    inFlight.open();
    await expect(step).rejects.toBeInstanceOf(LeaseLost);
    await expect(advanceRun(ctx, runId)).rejects.toBeInstanceOf(LeaseLost);
    expect(s.store.events(runId)).toEqual(afterCancel);
    expect(s.store.run(runId)).toMatchObject({ status: "cancelled", leaseOwner: null, toolCalls: 0 });
    expect(await s.store.claim("anyone", LEASE_MS, 10)).toEqual([]);
    expect(await s.store.cancel(runId, "user-1")).toBe(false);
  });

  it("cancel with a worker: the in-flight call is aborted, the worker stops, and the journal ends with run-cancelled", async () => {
    let signal: AbortSignal | undefined;
    const handler = vi.fn<MemoryToolHandler>(async (_input, context) => {
      signal = context.signal;
      await abortableDelay(30_000, context.signal);
      return ok({});
    });
    const s = setup({ agent: { tools: [{ id: "calc", version: "^1" }] }, tools: [toolOf("calc", handler)] });
    const worker = new KernelWorker(s.store, s.env, { leaseMs: LEASE_MS, pollMs: 1_000, concurrency: 4 });
    const runId = s.store.createRun({ agent: { id: "test.agent", version: "1.0.0" }, userMessage: JSON.stringify({ script: [{ toolCalls: [{ name: "calc", arguments: {} }] }, { text: "never" }] }), owner: worker.id }).id;
    const done = worker.execute(runId);
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(1));
    expect(await s.store.cancel(runId, "user-1")).toBe(true);
    worker.abort(runId, "cancelled");
    await done;
    expect(signal?.aborted).toBe(true);
    expect(worker.isExecuting(runId)).toBe(false);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "tool-call-started", "run-cancelled"]);
    expect(s.store.run(runId)).toMatchObject({ status: "cancelled", failure: null });
  });

  it("publishes each model call's words as they are written, numbered by call, never journaled", async () => {
    const s = setup({ agent: { tools: [{ id: "calc", version: "^1" }] }, tools: [toolOf("calc", async () => ok({ sum: 2 }))] });
    const runId = startRun(s, [{ toolCalls: [{ name: "calc", arguments: { n: 2 } }], chunkSize: 3 }, { text: "the sum is 2", chunkSize: 4 }]);
    await drive(s, runId);
    const mine = s.env.deltas.filter((entry) => entry.runId === runId).map((entry) => entry.delta);
    expect(mine.filter((delta) => delta.callIndex === 0).flatMap((delta) => delta.toolCalls ?? []).map((piece) => piece.argumentsDelta).join("")).toBe('{"n":2}');
    expect(mine.filter((delta) => delta.callIndex === 1).map((delta) => delta.text).join("")).toBe("the sum is 2");
    expect(mine.every((delta) => delta.attempt === 1)).toBe(true);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "model-called", "tool-call-started", "tool-call-completed", "model-called", "run-completed"]);
  });

  it("a model call whose stream broke mid-answer publishes a second attempt; the journal keeps the one answer", async () => {
    const s = setup();
    const runId = startRun(s, [{ text: "hello there", chunkSize: 2, breakAfterChunks: 2 }]);
    await drive(s, runId);
    const attempts = s.env.deltas.filter((entry) => entry.runId === runId).map((entry) => [entry.delta.attempt, entry.delta.text]);
    expect(attempts.slice(0, 2)).toEqual([[1, "he"], [1, "ll"]]);
    expect(attempts.slice(2).every(([attempt]) => attempt === 2)).toBe(true);
    expect(attempts.slice(2).map(([, text]) => text).join("")).toBe("hello there");
    expect(eventsOfType(s.store, runId, "model-called").map((event) => [event.data.text, event.data.attempts])).toEqual([["hello there", 2]]);
  });

  it("cancel mid-stream: the model call is aborted between two pieces, no answer is journaled, the journal ends with run-cancelled", async () => {
    const s = setup();
    const worker = new KernelWorker(s.store, s.env, { leaseMs: LEASE_MS, pollMs: 1_000, concurrency: 4 });
    const runId = s.store.createRun({ agent: { id: "test.agent", version: "1.0.0" }, userMessage: JSON.stringify({ script: [{ text: "x".repeat(100), chunkSize: 1, chunkDelayMs: 20 }] }), owner: worker.id }).id;
    const done = worker.execute(runId);
    await vi.waitFor(() => expect(s.env.deltas.filter((entry) => entry.runId === runId).length).toBeGreaterThanOrEqual(3));
    expect(await s.store.cancel(runId, "user-1")).toBe(true);
    worker.abort(runId, "cancelled");
    await done;
    const heard = s.env.deltas.filter((entry) => entry.runId === runId).length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(s.env.deltas.filter((entry) => entry.runId === runId).length).toBe(heard);
    expect(heard).toBeLessThan(100);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "turn-started", "run-cancelled"]);
  });

  it("a finished execution leaves no timer behind: the lease heartbeat and the step's deadline are cleared", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    try {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const handler = vi.fn<MemoryToolHandler>(async () => {
        await released;
        return ok({ sum: 2 });
      });
      const s = setup({ agent: { tools: [{ id: "calc", version: "^1" }] }, tools: [toolOf("calc", handler)] });
      const worker = new KernelWorker(s.store, s.env, { leaseMs: LEASE_MS, pollMs: 1_000, concurrency: 4 });
      const runId = s.store.createRun({ agent: { id: "test.agent", version: "1.0.0" }, userMessage: JSON.stringify({ script: [{ toolCalls: [{ name: "calc", arguments: {} }] }, { text: "two" }] }), owner: worker.id }).id;
      const done = worker.execute(runId);
      // While it runs: the heartbeat, and the deadline of the step that calls the tool.
      await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(1));
      expect(vi.getTimerCount()).toBe(2);
      release();
      await done;
      expect(s.store.run(runId)).toMatchObject({ status: "completed" });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("advanceRun: a tool invocation (one call of one tool version, no agent)", () => {
  const geocode = (handler: MemoryToolHandler, overrides: Partial<ToolManifest> = {}) =>
    toolOf("geo", handler, {
      input: {
        type: "object",
        required: ["address"],
        additionalProperties: false,
        properties: { address: { type: "object", required: ["city"], properties: { city: { type: "string" }, country: { type: "string", default: "DE" } } }, units: { enum: ["metric", "imperial"], default: "metric" } },
      },
      output: { type: "object", required: ["lat"], properties: { lat: { type: "number" } } },
      ...overrides,
    });

  function invocationRun(s: Setup, args: Record<string, unknown>, options: { version?: string; owner?: string } = {}): string {
    return s.store.createRun({ invocation: { toolId: "geo", version: options.version ?? "1.0.0", arguments: args }, owner: options.owner ?? OWNER, leaseMs: LEASE_MS }).id;
  }

  it("start → the one call (defaults filled, idempotency key) → done: the output is the tool's JSON value; no model is called", async () => {
    const handler = vi.fn<MemoryToolHandler>(async (input) => ok({ lat: 52.5, echo: input }));
    const s = setup({ tools: [geocode(handler)] });
    const runId = invocationRun(s, { address: { city: "Berlin" } });
    expect(await drive(s, runId)).toEqual(["continue", "continue", "settled"]);
    expect(typesOf(s.store, runId)).toEqual(["run-created", "invocation-started", "tool-call-started", "tool-call-completed", "run-completed"]);
    const filled = { address: { city: "Berlin", country: "DE" }, units: "metric" };
    expect(handler.mock.calls.map(([input]) => input)).toEqual([filled]);
    expect(s.env.invocationsOf("geo")).toMatchObject([{ callId: "0.0", idempotencyKey: idempotencyKeyOf(runId, "0.0"), version: "1.0.0" }]);
    expect(eventsOfType(s.store, runId, "invocation-started")[0].data).toEqual({ tool: { id: "geo", version: "1.0.0" }, deadline: new Date(s.clock.now().getTime() + 120_000).toISOString() });
    expect(eventsOfType(s.store, runId, "tool-call-started")[0].data).toEqual({ callId: "0.0", toolId: "geo", version: "1.0.0", arguments: filled, idempotencyKey: idempotencyKeyOf(runId, "0.0") });
    expect(eventsOfType(s.store, runId, "run-completed")[0].data).toEqual({ output: { lat: 52.5, echo: filled } });
    expect(s.store.run(runId)).toMatchObject({
      kind: "tool-invocation",
      agentId: null,
      status: "completed",
      output: { lat: 52.5, echo: filled },
      failure: null,
      resolvedTools: [{ id: "geo", range: "1.0.0", version: "1.0.0" }],
      modelCalls: 0,
      toolCalls: 1,
      providerId: null,
      startedAt: s.clock.now(),
      finishedAt: s.clock.now(),
      leaseOwner: null,
    });
    expect(s.env.modelRequests).toEqual([]);
  });

  it("a failed call fails the run at once (no model to send it back to): tool error, output off its schema, invalid arguments", async () => {
    const broken = setup({ tools: [geocode(async () => ({ ok: false, error: { kind: "tool-error", message: "upstream is down", reason: "network-denied" } }))] });
    const brokenRun = invocationRun(broken, { address: { city: "Rome" } });
    await drive(broken, brokenRun);
    expect(failureOf(broken.store, brokenRun)).toEqual({
      code: "tool-invocation-failed",
      message: "the call to tool geo@1.0.0 failed (tool-error, network-denied: upstream is down)",
      details: { callId: "0.0", toolId: "geo", version: "1.0.0", kind: "tool-error", reason: "network-denied" },
    });
    expect(typesOf(broken.store, brokenRun)).toEqual(["run-created", "invocation-started", "tool-call-started", "tool-call-completed", "run-failed"]);
    expect(broken.store.run(brokenRun)).toMatchObject({ output: null, toolCalls: 1 });

    const liar = setup({ tools: [geocode(async () => ok({ lat: "north" }))] });
    const liarRun = invocationRun(liar, { address: { city: "Rome" } });
    await drive(liar, liarRun);
    expect(failureOf(liar.store, liarRun)).toMatchObject({ code: "tool-invocation-failed", message: expect.stringContaining("/lat must be a number"), details: { kind: "tool-error" } });

    const handler = vi.fn<MemoryToolHandler>(async () => ok({ lat: 1 }));
    const invalid = setup({ tools: [geocode(handler)] });
    const invalidRun = invocationRun(invalid, { address: { city: 7 } });
    await drive(invalid, invalidRun);
    expect(failureOf(invalid.store, invalidRun)).toMatchObject({ code: "tool-invocation-failed", details: { kind: "invalid-arguments" } });
    expect(typesOf(invalid.store, invalidRun)).toEqual(["run-created", "invocation-started", "tool-call-completed", "run-failed"]);
    expect(handler).not.toHaveBeenCalled();
  });

  it("a version that cannot be loaded fails the run at start (tool-version-unresolvable)", async () => {
    const handler = vi.fn<MemoryToolHandler>(async () => ok({ lat: 1 }));
    const s = setup({ tools: [geocode(handler)] });
    const runId = invocationRun(s, { address: { city: "Rome" } }, { version: "2.0.0" });
    expect(await drive(s, runId)).toEqual(["settled"]);
    expect(failureOf(s.store, runId)).toMatchObject({ code: "tool-version-unresolvable", details: { toolId: "geo", range: "2.0.0", available: [] } });
    expect(typesOf(s.store, runId)).toEqual(["run-created", "run-failed"]);
    expect(handler).not.toHaveBeenCalled();
  });

  it("wall clock (maxWallMs default 120000): a call after the deadline is not performed and the run fails", async () => {
    const handler = vi.fn<MemoryToolHandler>(async () => ok({ lat: 1 }));
    const s = setup({ tools: [geocode(handler)] });
    const runId = invocationRun(s, { address: { city: "Rome" } });
    const ctx = contextOf(s);
    expect(await advanceRun(ctx, runId)).toBe("continue");
    s.clock.advance(120_000);
    expect(await advanceRun(ctx, runId)).toBe("settled");
    expect(failureOf(s.store, runId)).toMatchObject({ code: "budget-exceeded", message: expect.stringContaining("tool invocation"), details: { kind: "wall-clock", limit: 120_000 } });
    expect(handler).not.toHaveBeenCalled();
  });

  it("crash and resume: the call in flight is run again by the next worker with the same idempotency key, and the run completes once", async () => {
    const stalled = gate();
    const handler = vi.fn<MemoryToolHandler>(async (_input, context) => {
      if (context.attempt === 1) await stalled.opened;
      return ok({ lat: context.attempt });
    });
    const s = setup({ tools: [geocode(handler, { mutating: true })] });
    const runId = invocationRun(s, { address: { city: "Rome" } });
    const a = contextOf(s);
    expect(await advanceRun(a, runId)).toBe("continue");
    const stuck = advanceRun(a, runId);
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(1));

    const b = new KernelWorker(s.store, s.env, { leaseMs: LEASE_MS, pollMs: 1_000, concurrency: 4 });
    s.clock.advance(LEASE_MS + 1);
    expect(await s.store.claim(b.id, LEASE_MS, 10)).toEqual([{ id: runId, previousOwner: OWNER }]);
    stalled.open();
    await expect(stuck).rejects.toBeInstanceOf(LeaseLost);

    await b.execute(runId, { resumedFrom: OWNER });
    expect(typesOf(s.store, runId)).toEqual(["run-created", "invocation-started", "tool-call-started", "run-resumed", "tool-call-started", "tool-call-completed", "run-completed"]);
    expect(s.env.invocationsOf("geo").map((record) => record.idempotencyKey)).toEqual([idempotencyKeyOf(runId, "0.0"), idempotencyKeyOf(runId, "0.0")]);
    expect(s.store.run(runId)).toMatchObject({ status: "completed", output: { lat: 2 }, toolCalls: 1, leaseOwner: null });
  });
});
