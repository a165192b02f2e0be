/**
 * Durability: runs survive the server process being killed (SIGKILL) mid-flight. A second server on the same
 * database resumes every run from its journal; a tool call whose result was journaled is never sent again, and a
 * call that was in flight is sent again only with the same Idempotency-Key, so the receiving system (here a
 * recording server that deduplicates by that key, as a payment API would) executes each call exactly once.
 */
import fs from "node:fs";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgresDatabase, newOperatorToken, startServer, waitForProcessGroupExit, type RunningServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { sleep } from "./helpers/kernel";

const RUNS = 24;
const CALL_MS = 700;

let receiver: RecordingServer;
/** Executions per Idempotency-Key (a repeat is answered from memory, not executed). */
const executions = new Map<string, number>();
const answers = new Map<string, unknown>();
/** Raw requests per key, repeats included. */
const received = new Map<string, number>();

let database: { url: string; drop: () => Promise<void> } | null = null;
let dataDir: string | undefined;
let server: RunningServer | null = null;

beforeAll(async () => {
  receiver = await startRecordingServer(async (request, response) => {
    const key = String(request.headers["idempotency-key"] ?? "");
    received.set(key, (received.get(key) ?? 0) + 1);
    if (answers.has(key)) return sendJson(response, 200, answers.get(key));
    await sleep(CALL_MS);
    if (answers.has(key)) return sendJson(response, 200, answers.get(key));
    executions.set(key, (executions.get(key) ?? 0) + 1);
    const answer = { charged: JSON.parse(request.body).word };
    answers.set(key, answer);
    sendJson(response, 200, answer);
  });
  if (process.env.KINDGI_TEST_DATABASE_URL) database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL);
});

afterAll(async () => {
  await server?.stop();
  await receiver.close();
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function api(base: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

describe("SIGKILL in the middle of runs", () => {
  it(`${RUNS} runs with a slow mutating HTTP tool all complete after a kill and a restart, each call executed exactly once`, async () => {
    const operatorToken = newOperatorToken();
    const env = { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), KINDGI_RUN_LEASE_MS: "2000", KINDGI_RUN_POLL_MS: "200", KINDGI_DEV_PROVIDERS: "1" };
    server = await startServer({ env });
    dataDir = server.dataDir;
    const base = server.baseUrl;
    const tenant = await fetch(`${base}/v1/tenants`, { method: "POST", headers: { Authorization: `Bearer ${operatorToken}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "durability" }) }).then((r) => r.json());
    const key: string = tenant.apiKey.key;

    const toolId = "test.charge";
    const tool = {
      id: toolId,
      description: "Charges a card (slowly).",
      version: "1.0.0",
      input: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
      output: { type: "object", properties: { charged: { type: "string" } }, required: ["charged"] },
      mutating: true,
      network: { kind: "allowlist", hosts: [receiver.hostPort] },
      spec: { kind: "http", method: "POST", urlTemplate: `${receiver.origin}/charge`, requestBody: { kind: "json-input" } },
    };
    expect((await api(base, key, "POST", "/v1/tools", { ...tool, projectId: tenant.project.id })).status).toBe(201);
    const agent = { id: "test.biller", version: "1.0.0", name: "Biller", instructions: "Bill.", capabilities: [{}], tools: [{ id: toolId, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" };
    expect((await api(base, key, "POST", "/v1/agents", { ...agent, projectId: tenant.project.id })).status).toBe(201);

    // The tool is mutating: a person approves its first call and remembers it (a grant), so the runs below pass.
    const warmUp = await api(base, key, "POST", "/v1/runs", { agent: { id: agent.id }, input: { userMessage: JSON.stringify({ script: [{ toolCalls: [{ name: toolId, arguments: { word: "warm-up" } }] }, { text: "ok" }] }) } });
    expect(warmUp.body.status).toBe("suspended");
    const [approval] = (await api(base, key, "GET", `/v1/approvals?runId=${warmUp.body.id}`)).body.data;
    expect((await api(base, key, "POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve", remember: true })).status).toBe(200);
    for (let until = Date.now() + 30_000; (await api(base, key, "GET", `/v1/runs/${warmUp.body.id}`)).body.status !== "completed" && Date.now() < until; ) await sleep(50);
    executions.clear();
    answers.clear();
    received.clear();

    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const userMessage = JSON.stringify({
        script: [
          { toolCalls: [{ name: toolId, arguments: { word: `run${i}-first` } }] },
          { toolCalls: [{ name: toolId, arguments: { word: `run${i}-second` } }] },
          { text: `billed ${i}` },
        ],
      });
      const created = await api(base, key, "POST", "/v1/runs", { agent: { id: agent.id }, input: { userMessage }, options: { wait: false } });
      expect(created.status).toBe(202);
      runIds.push(created.body.id);
    }

    // Kill once half of the runs have their second call in flight (their first one answered and journaled).
    const secondCalls = () => [...received.keys()].filter((callKey) => callKey.endsWith("-call-1.0")).length;
    for (const waitUntil = Date.now() + 30_000; secondCalls() < RUNS / 2 && Date.now() < waitUntil; ) await sleep(20);
    const killedAt = Date.now();
    const pgid = server.process.pid!;
    process.kill(-pgid, "SIGKILL");
    await waitForProcessGroupExit(pgid);
    const receivedAtKill = new Map(received);

    server = await startServer({ env, dataDir });
    const restarted = server.baseUrl;

    const deadline = Date.now() + 90_000;
    const finished = new Map<string, any>();
    while (finished.size < RUNS && Date.now() < deadline) {
      for (const id of runIds) {
        if (finished.has(id)) continue;
        const run = await api(restarted, key, "GET", `/v1/runs/${id}`);
        if (["completed", "failed", "cancelled"].includes(run.body?.status)) finished.set(id, run.body);
      }
      await sleep(250);
    }
    expect(finished.size).toBe(RUNS);
    runIds.forEach((id, i) => expect(finished.get(id)).toMatchObject({ status: "completed", output: `billed ${i}`, usage: { toolCalls: 2 } }));

    // Every call executed exactly once by the receiving system: 2 per run, each under its own key.
    expect(executions.size).toBe(RUNS * 2);
    for (const [callKey, count] of executions) expect(count, callKey).toBe(1);

    let resumed = 0;
    let resent = 0;
    for (const id of runIds) {
      const events = (await api(restarted, key, "GET", `/v1/runs/${id}/journal?limit=1000`)).body.data as any[];
      const completions = events.filter((event) => event.type === "tool-call-completed");
      expect(completions.map((event) => event.data.callId)).toEqual(["0.0", "1.0"]);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
      const wasResumed = events.some((event) => event.type === "run-resumed");
      if (wasResumed) resumed += 1;
      // A run the killed server had started and not finished is resumed from its journal, never restarted.
      const before = (event: any) => Date.parse(event.createdAt) < killedAt;
      const inFlightAtKill = events.some((event) => event.type !== "run-created" && before(event)) && !events.some((event) => event.type === "run-completed" && before(event));
      if (inFlightAtKill) expect(wasResumed, `run ${id} was in flight at the kill`).toBe(true);
      for (const event of completions) {
        const callKey = `kindgi-run-${id}-call-${event.data.callId}`;
        expect(event.data.output).toEqual(answers.get(callKey));
        // A call whose result was journaled before the kill was never sent again.
        if (Date.parse(event.createdAt) < killedAt) expect(received.get(callKey), callKey).toBe(receivedAtKill.get(callKey));
        if ((received.get(callKey) ?? 0) > 1) resent += 1;
      }
    }
    // The kill really hit runs in flight: they were resumed, and in-flight calls were re-sent with their key. (How many
    // were in flight depends on the machine's speed; every one of them was resumed, checked above.)
    expect(resumed).toBeGreaterThan(0);
    expect(resent).toBeGreaterThan(0);
    console.log(`[durability] ${RUNS} runs, ${resumed} resumed after SIGKILL, ${resent} in-flight calls re-sent with the same Idempotency-Key, ${executions.size} calls executed once each`);
  }, 180_000);
});
