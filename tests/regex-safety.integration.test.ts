import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { httpTool, journal, registerAgent, registerTool, script, sleep, startRun, waitForRun } from "./helpers/kernel";
import { sendJson, startRecordingServer, type RecordedRequest, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

/** Catastrophic for a backtracking engine: V8 needs about 2^36 steps to find that this text does not match. */
const CATASTROPHIC_PATTERN = "^(a|a)+$";
const CATASTROPHIC_TEXT = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!";
const HEALTH_BUDGET_MS = 100;
/** Longer than any request takes on a loaded test machine, far shorter than a backtracking engine's stall. */
const STALL_MS = 2000;

let server: RecordingServer;
let tenant: TestTenant;

beforeAll(async () => {
  server = await startRecordingServer(async (request: RecordedRequest, response) => {
    const url = new URL(request.url, "http://x");
    const ms = Number(url.searchParams.get("ms") ?? 0);
    if (ms) await sleep(ms);
    const body = request.body ? JSON.parse(request.body) : {};
    sendJson(response, 200, { definition: `a word: ${body.word ?? "?"}` });
  });
  tenant = await newTenant("regex safety");
  // Warm up: the first request to a route loads its code, which is not what these tests measure.
  const warmTool = await registerTool(tenant, httpTool(server, { output: { type: "object", properties: { definition: { type: "string", pattern: "^a" } } } }));
  const warmAgent = await registerAgent(tenant, { tools: [{ id: warmTool, version: "1.0.0" }], output: { schema: { type: "object" } } });
  const warm = await startRun(tenant, warmAgent, script({ toolCalls: [{ name: warmTool, arguments: { word: "warm" } }] }, { text: "{}" }), { wait: false });
  await waitForRun(tenant, warm.body.id);
  await journal(tenant, warm.body.id);
});

afterAll(async () => {
  await server.close();
});

type Sample = { start: number; end: number; ms: number; status: number };

/**
 * Calls GET /health one request after another while a run started by `start` is in progress (from the 202 until
 * `settle` returns), and returns `settle`'s result with every sample and the window. A request still unanswered
 * after STALL_MS is aborted and fails the test at once, instead of leaving it to hang on a stalled server.
 */
async function measureHealthDuring<T>(start: () => Promise<string>, settle: (runId: string) => Promise<T>): Promise<{ result: T; samples: Sample[]; window: { start: number; end: number } }> {
  const samples: Sample[] = [];
  let done = false;
  let stalled: (error: Error) => void = () => {};
  const stall = new Promise<never>((_, reject) => (stalled = reject));
  stall.catch(() => {});
  const pinger = (async () => {
    while (!done) {
      const begin = performance.now();
      let status = 0;
      try {
        const response = await fetch(`${kindgi().baseUrl}/health`, { signal: AbortSignal.timeout(STALL_MS) });
        await response.text();
        status = response.status;
      } catch {
        stalled(new Error(`GET /health did not answer within ${STALL_MS} ms: the server is stalled`));
      }
      const end = performance.now();
      samples.push({ start: begin, end, ms: end - begin, status });
      await sleep(5);
    }
  })();
  try {
    await sleep(100); // the pinger is running before the run starts
    const runId = await Promise.race([start(), stall]);
    const windowStart = performance.now();
    const result = await Promise.race([settle(runId), stall]);
    return { result, samples, window: { start: windowStart, end: performance.now() } };
  } finally {
    done = true;
    await pinger;
  }
}

/**
 * GET /health kept answering while the run was in progress: every request answered 200, the typical one (the
 * median) within 100 ms, and none took two seconds. A backtracking engine would stall the whole process for far
 * longer (about 2^36 steps on CATASTROPHIC_TEXT): every request from the validation on would hang. A single
 * request's time also counts the test machine's scheduling, so the bound on every request is kept loose.
 */
function expectHealthyThroughout(samples: Sample[], window: { start: number; end: number }): void {
  const during = samples.filter((sample) => sample.end >= window.start && sample.start <= window.end);
  expect(during.length).toBeGreaterThanOrEqual(3);
  expect(during.filter((sample) => sample.status !== 200)).toEqual([]);
  const times = during.map((sample) => sample.ms).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(`GET /health during the run: ${times.length} requests, median ${median.toFixed(1)} ms, slowest ${times[times.length - 1].toFixed(1)} ms (run ${(window.end - window.start).toFixed(0)} ms)`);
  expect(median).toBeLessThan(HEALTH_BUDGET_MS);
  expect(times[times.length - 1]).toBeLessThan(STALL_MS);
}

/** POST /v1/runs with wait: false; the run's id. */
async function startAsync(agent: { id: string; version: string }, steps: string): Promise<string> {
  const started = await startRun(tenant, agent, steps, { wait: false });
  expect(started.status).toBe(202);
  return started.body.id;
}

const completions = async (runId: string) => (await journal(tenant, runId)).filter((event) => event.type === "tool-call-completed").map((event) => event.data);

describe("a tool schema pattern that is catastrophic for a backtracking engine", () => {
  it("is registered; a call with arguments that would stall V8 gets invalid-arguments while GET /health keeps answering within 100 ms", async () => {
    const toolId = await registerTool(tenant, httpTool(server, {
      input: { type: "object", properties: { word: { type: "string", pattern: CATASTROPHIC_PATTERN } }, required: ["word"], additionalProperties: false },
    }, { urlTemplate: `${server.origin}/lookup?ms=400` }));
    const agent = await registerAgent(tenant, { tools: [{ id: toolId, version: "1.0.0" }] });
    const before = server.requests.length;
    // A slow valid call, the catastrophic call, a second slow valid call: the catastrophic validation sits mid-run.
    const steps = script(
      { toolCalls: [{ name: toolId, arguments: { word: "aaaa" } }] },
      { toolCalls: [{ name: toolId, arguments: { word: CATASTROPHIC_TEXT } }] },
      { toolCalls: [{ name: toolId, arguments: { word: "aaaaaa" } }] },
      { text: "done" },
    );
    const { result: run, samples, window } = await measureHealthDuring(() => startAsync(agent, steps), (runId) => waitForRun(tenant, runId));

    expectHealthyThroughout(samples, window);
    expect(run).toMatchObject({ status: "completed", output: "done" });
    const results = await completions(run.id);
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ ok: true, output: { definition: "a word: aaaa" } });
    expect(results[1]).toMatchObject({ ok: false, toolId, error: { kind: "invalid-arguments" } });
    expect(results[1].error.message).toContain(`/word must match the pattern ${CATASTROPHIC_PATTERN}`);
    expect(results[2]).toMatchObject({ ok: true, output: { definition: "a word: aaaaaa" } });
    // The catastrophic argument never reached the tool.
    expect(server.requests.slice(before).map((request) => JSON.parse(request.body).word)).toEqual(["aaaa", "aaaaaa"]);
  });

  it("a patternProperties pattern runs on the same engine: a property name that would stall V8 is checked at once", async () => {
    const toolId = await registerTool(tenant, httpTool(server, {
      input: { type: "object", properties: { word: { type: "string" } }, patternProperties: { [CATASTROPHIC_PATTERN]: { type: "number" } }, required: ["word"] },
    }, { urlTemplate: `${server.origin}/lookup?ms=400` }));
    const agent = await registerAgent(tenant, { tools: [{ id: toolId, version: "1.0.0" }] });
    const steps = script(
      { toolCalls: [{ name: toolId, arguments: { word: "before" } }] },
      { toolCalls: [{ name: toolId, arguments: { word: "x", [CATASTROPHIC_TEXT]: "one", aaa: "two" } }] },
      { toolCalls: [{ name: toolId, arguments: { word: "after" } }] },
      { text: "done" },
    );
    const { result: run, samples, window } = await measureHealthDuring(() => startAsync(agent, steps), (runId) => waitForRun(tenant, runId));
    expectHealthyThroughout(samples, window);
    expect(run).toMatchObject({ status: "completed", output: "done" });
    // "aaa" matches the pattern, so it must be a number; the catastrophic name does not match (it ends in "!").
    const [before, result, after] = await completions(run.id);
    expect([before.ok, after.ok]).toEqual([true, true]);
    expect(result).toMatchObject({ ok: false, error: { kind: "invalid-arguments" } });
    expect(result.error.message).toContain("/aaa must be a number");
    expect(result.error.message).not.toContain(CATASTROPHIC_TEXT);
  });
});

describe("a typed output whose schema pattern is catastrophic for a backtracking engine", () => {
  it("an answer that would stall V8 fails the schema (output-schema-violation) while GET /health keeps answering within 100 ms", async () => {
    const output = { schema: { type: "object", properties: { word: { type: "string", pattern: CATASTROPHIC_PATTERN } }, required: ["word"] }, maxRepairs: 1 };
    const slowTool = await registerTool(tenant, httpTool(server, {}, { urlTemplate: `${server.origin}/lookup?ms=400` }));
    const agent = await registerAgent(tenant, { output, tools: [{ id: slowTool, version: "1.0.0" }] });
    const answer = JSON.stringify({ word: CATASTROPHIC_TEXT });
    const steps = script({ toolCalls: [{ name: slowTool, arguments: { word: "first" } }] }, { text: answer }, { text: answer });
    const { result: run, samples, window } = await measureHealthDuring(() => startAsync(agent, steps), (runId) => waitForRun(tenant, runId));
    expectHealthyThroughout(samples, window);
    expect(run.status).toBe("failed");
    expect(run.failure).toMatchObject({ code: "output-schema-violation", details: { repairs: 1, issues: [{ path: "/word" }] } });
  });
});

describe("registration refuses a pattern the linear-time engine cannot run, at the pattern keyword", () => {
  it("a tool's input and output schemas", async () => {
    const manifest = httpTool(server, {
      input: { type: "object", properties: { word: { type: "string", pattern: "^(\\w)\\1$" } }, required: ["word"] },
      output: { type: "object", patternProperties: { "^(?!x-)": { type: "string" } } },
    });
    const response = await call("POST", "/v1/tools", { key: tenant.key, body: { projectId: tenant.projectId, ...manifest } });
    const error = expectError(response, 400, "validation-failed");
    expect(error.details.issues).toEqual([
      { path: "/input/properties/word/pattern", message: expect.stringContaining("backreferences") },
      { path: "/output/patternProperties/^(?!x-)", message: expect.stringContaining("lookahead") },
    ]);
    expectError(await call("GET", `/v1/tools/${manifest.id}`, { key: tenant.key }), 404, "not-found");
  });

  it("an agent's output schema", async () => {
    const body = { id: `regex.agent-${Date.now().toString(36)}`, version: "1.0.0", name: "Regex agent", instructions: "Answer.", capabilities: [{ kind: "llm-inference" }], tools: [], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId, output: { schema: { type: "object", properties: { when: { type: "string", pattern: "(?<=at )\\d+" } } } } };
    const error = expectError(await call("POST", "/v1/agents", { key: tenant.key, body }), 400, "validation-failed");
    expect(error.details.issues).toEqual([{ path: "/output/schema/properties/when/pattern", message: expect.stringContaining("lookahead and lookbehind") }]);
  });

  it("a guardrail's JSON Schema check", async () => {
    const body = { id: `regex.guardrail-${Date.now().toString(36)}`, version: "1.0.0", name: "Regex guardrail", action: "halt", projectId: tenant.projectId, check: { kind: "json-schema", schema: { type: "string", pattern: "a{2000}" } } };
    const error = expectError(await call("POST", "/v1/guardrails", { key: tenant.key, body }), 400, "validation-failed");
    expect(error.details.issues).toEqual([{ path: "/check/schema/pattern", message: expect.stringContaining("repetition counts above 1000") }]);
  });
});
