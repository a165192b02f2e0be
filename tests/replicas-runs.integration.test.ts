/**
 * Runs across two replicas on one PostgreSQL database (started at the same moment on an empty database, with short
 * leases): a run executing on A streams its model's words to a client on B — from the start, and to a client joining
 * mid-call, which first gets the text so far; and when A is killed (SIGKILL) in the middle of runs, B finishes them,
 * each mutating call executed once per idempotency key by the receiving system.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, kindgi, tenantOn, type TestTenant } from "./helpers/api";
import { script, sleep, startIdempotentReceiver } from "./helpers/kernel";
import { startReplicas, type Replicas } from "./helpers/replicas";
import { waitForProcessGroupExit } from "./helpers/server";
import { assembledText, deltas, journaled, readSse, type SseFrame } from "./helpers/sse";
import type { RecordingServer } from "../lib/tools/invokers/testing/recording-server";

const CALL_MS = 700;
const ended = (frames: SseFrame[]) => frames.some((frame) => ["run-completed", "run-failed", "run-cancelled"].includes(frame.event));

describe.skipIf(kindgi().backend !== "postgresql")("runs across two replicas", () => {
  let replicas: Replicas;
  let receiver: RecordingServer;
  let tenant: TestTenant;
  /** Executions per Idempotency-Key (a repeat is answered from memory, as a payment API would), and raw requests. */
  let executions: Map<string, number>;
  let received: Map<string, number>;
  let clearReceiver: () => void;
  const onA = (method: string, path: string, body?: unknown) => call(method, path, { key: tenant.key, body, baseUrl: replicas.a.baseUrl });
  const onB = (method: string, path: string, body?: unknown) => call(method, path, { key: tenant.key, body, baseUrl: replicas.b.baseUrl });

  beforeAll(async () => {
    [replicas, receiver] = await Promise.all([
      startReplicas({ env: { KINDGI_RUN_LEASE_MS: "2000", KINDGI_RUN_POLL_MS: "200" } }),
      startIdempotentReceiver(CALL_MS).then((started) => {
        ({ executions, received, clear: clearReceiver } = started);
        return started.server;
      }),
    ]);
    tenant = await tenantOn(replicas.a.baseUrl, replicas.operatorToken, "replica runs");
  }, 180_000);
  afterAll(async () => {
    await replicas?.stop();
    await receiver?.close();
  });

  async function agent(overrides: Record<string, unknown> = {}) {
    const body = { id: `replicas.agent-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`, version: "1.0.0", name: "Agent", instructions: "Act.", capabilities: [{ kind: "llm-inference" }], tools: [], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId, ...overrides };
    const response = await onA("POST", "/v1/agents", body);
    expect(response.status, response.text).toBe(201);
    return body.id;
  }

  const streamOnB = async (runId: string) => readSse(await fetch(`${replicas.b.baseUrl}/v1/runs/${runId}/stream`, { headers: { Authorization: `Bearer ${tenant.key}` } }));

  it("a run executing on A streams its model's words to a client on B as they are written", async () => {
    const text = Array.from({ length: 24 }, (_, i) => `word${i} `).join("");
    const agentId = await agent();
    const started = await onA("POST", "/v1/runs", { agent: { id: agentId }, input: { userMessage: script({ text, chunkSize: 6, chunkDelayMs: 40 }) }, options: { wait: false } });
    expect(started.status, started.text).toBe(202);
    const frames = await (await streamOnB(started.body.id)).waitFor(ended);
    const pieces = deltas(frames);
    // Words arrived one by one while the model wrote them (about 1.2 s), not all at the end.
    expect(pieces.length).toBeGreaterThan(10);
    const answered = frames.find((frame) => frame.event === "model-called")!;
    expect(answered.at - pieces[0].at).toBeGreaterThan(500);
    expect(assembledText(frames, 0)).toEqual({ attempt: 1, text });
    expect(journaled(frames).map((frame) => frame.event)).toEqual(["run-created", "turn-started", "model-called", "run-completed"]);
  });

  it("a client joining on B mid-call first gets the text so far, written on A", async () => {
    const text = Array.from({ length: 30 }, (_, i) => `w${String(i).padStart(2, "0")} `).join("");
    const agentId = await agent();
    const started = await onA("POST", "/v1/runs", { agent: { id: agentId }, input: { userMessage: script({ text, chunkSize: 4, chunkDelayMs: 50 }) }, options: { wait: false } });
    await sleep(600);
    const frames = await (await streamOnB(started.body.id)).waitFor(ended);
    const [first, ...rest] = deltas(frames);
    expect(first.data).toMatchObject({ callIndex: 0, attempt: 1, snapshot: true });
    expect(first.data.text.length).toBeGreaterThan(0);
    expect(text.startsWith(first.data.text)).toBe(true);
    expect(rest.length).toBeGreaterThan(0);
    expect(assembledText(frames, 0).text).toBe(text);
  });

  it("A killed mid-run: B finishes every run, each mutating call executed once per idempotency key", async () => {
    const tool = {
      id: `replicas.charge-${Date.now()}`,
      description: "Charges a card (slowly).",
      version: "1.0.0",
      input: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
      output: { type: "object", properties: { charged: { type: "string" } }, required: ["charged"] },
      mutating: true,
      network: { kind: "allowlist", hosts: [receiver.hostPort] },
      spec: { kind: "http", method: "POST", urlTemplate: `${receiver.origin}/charge`, requestBody: { kind: "json-input" } },
      projectId: tenant.projectId,
    };
    expect((await onA("POST", "/v1/tools", tool)).status).toBe(201);
    const agentId = await agent({ tools: [{ id: tool.id, version: "^1.0.0" }] });
    // The tool is mutating: a person approves its first call and remembers it (a grant), so the runs below pass.
    const warmUp = await onA("POST", "/v1/runs", { agent: { id: agentId }, input: { userMessage: script({ toolCalls: [{ name: tool.id, arguments: { word: "warm-up" } }] }, { text: "ok" }) } });
    expect(warmUp.body.status, warmUp.text).toBe("suspended");
    const [approval] = (await onA("GET", `/v1/approvals?runId=${warmUp.body.id}`)).body.data;
    expect((await onA("POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve", remember: true })).status).toBe(200);
    for (let until = Date.now() + 30_000; (await onA("GET", `/v1/runs/${warmUp.body.id}`)).body.status !== "completed" && Date.now() < until; ) await sleep(50);
    clearReceiver();

    const RUNS = 6;
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const userMessage = script({ toolCalls: [{ name: tool.id, arguments: { word: `run${i}-first` } }] }, { toolCalls: [{ name: tool.id, arguments: { word: `run${i}-second` } }] }, { text: `billed ${i}` });
      const created = await onA("POST", "/v1/runs", { agent: { id: agentId }, input: { userMessage }, options: { wait: false } });
      expect(created.status, created.text).toBe(202);
      runIds.push(created.body.id);
    }
    // Killed once half of the runs have their second call in flight (the first answered and journaled).
    const secondCalls = () => [...received.keys()].filter((key) => key.endsWith("-call-1.0")).length;
    for (const until = Date.now() + 30_000; secondCalls() < RUNS / 2 && Date.now() < until; ) await sleep(20);
    const pgid = replicas.a.process.pid!;
    process.kill(-pgid, "SIGKILL");
    await waitForProcessGroupExit(pgid);

    const finished = new Map<string, any>();
    for (const deadline = Date.now() + 60_000; finished.size < RUNS && Date.now() < deadline; ) {
      for (const id of runIds) {
        if (finished.has(id)) continue;
        const run = await onB("GET", `/v1/runs/${id}`);
        if (["completed", "failed", "cancelled"].includes(run.body?.status)) finished.set(id, run.body);
      }
      await sleep(200);
    }
    expect(finished.size).toBe(RUNS);
    runIds.forEach((id, i) => expect(finished.get(id)).toMatchObject({ status: "completed", output: `billed ${i}`, usage: { toolCalls: 2 } }));
    // Every call executed exactly once by the receiving system: two per run, each under its own key; the calls in
    // flight at the kill were sent again by B with the same key.
    expect(executions.size).toBe(RUNS * 2);
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
    expect([...received.values()].some((count) => count > 1)).toBe(true);
    // B resumed those A had in flight (journaled as run-resumed, naming A's worker as the previous one).
    const journals = await Promise.all(runIds.map(async (id) => (await onB("GET", `/v1/runs/${id}/journal?limit=100`)).body.data as any[]));
    const resumedRuns = journals.filter((events) => events.some((event) => event.type === "run-resumed"));
    expect(resumedRuns.length).toBeGreaterThanOrEqual(RUNS / 2);
  });
});
