/**
 * The model's order, kept across waits: in one model step `[waiting call, read1 … readN]`, no read starts before the
 * waiting call has finished — whether it waits for an approval (a mutating tool), for its paused answer (a pack
 * handler with `pauses: true`), or for an approval an unattended run asks for (a read-only tool with
 * `needsApprovalWhenUnattended`). The order is read from the clock of the server the tools call (each request's
 * arrival, and when the waiting call's answer was sent), never from the run's journal. On a server of this file's own
 * (pack handlers need NODE_ENV=test).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, tenantOn, type TestTenant } from "./helpers/api";
import { script, sleep } from "./helpers/kernel";
import { startOwnServer, type OwnServer, type RunningServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let own: OwnServer;
let server: RunningServer;
let recorder: RecordingServer;
let tenant: TestTenant;

/** What the tools' server saw of one request: its path, body, when it arrived and when its answer was sent. */
type Seen = { path: string; body: any; arrivedAt: number; answeredAt: number };
const seen: Seen[] = [];

beforeAll(async () => {
  recorder = await startRecordingServer(async (request, response) => {
    const arrivedAt = performance.now();
    // Each call takes a while, so a call started too early overlaps the one before it on this clock.
    await sleep(40);
    sendJson(response, 200, { ok: true });
    seen.push({ path: request.url, body: request.body ? JSON.parse(request.body) : null, arrivedAt, answeredAt: performance.now() });
  });
  own = await startOwnServer();
  server = own.server;
  tenant = await tenantOn(server.baseUrl, own.operatorToken, "call order");
}, 180_000);

afterAll(async () => {
  await own?.stop();
  await recorder?.close();
});

const api = (method: string, urlPath: string, body?: unknown, key = tenant.key) => call(method, urlPath, { key, body, baseUrl: server.baseUrl });

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

async function register(manifest: Record<string, unknown>): Promise<string> {
  const id = unique("acme.tool");
  const response = await api("POST", "/v1/tools", { id, version: "1.0.0", projectId: tenant.projectId, ...manifest });
  expect(response.status, response.text).toBe(201);
  return id;
}

/** An HTTP tool posting its input to the recorder at `/<tag>`. */
const httpTool = (tag: string, overrides: Record<string, unknown> = {}) =>
  register({
    description: `Sends its input to the test server (${tag}).`,
    input: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
    output: { type: "object" },
    mutating: false,
    network: { kind: "allowlist", hosts: [recorder.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${recorder.origin}/${tag}`, requestBody: { kind: "json-input" } },
    ...overrides,
  });

const pausingTool = () =>
  register({
    description: "Asks another system and waits for its answer.",
    input: { type: "object", properties: { notify: { type: "string" }, ref: { type: "string" } }, required: ["notify"] },
    output: { type: "object", properties: { verdict: { type: "string" } }, required: ["verdict"], additionalProperties: false },
    mutating: false,
    pauses: true,
    network: { kind: "allowlist", hosts: [recorder.hostPort] },
    codeArtifactRef: { kind: "filesystem", modulePath: path.join(own.handlers, "pauser.mjs") },
  });

async function agent(toolIds: string[]): Promise<{ id: string; version: string }> {
  const body = { id: unique("acme.agent"), version: "1.0.0", name: "Agent", instructions: "Act.", capabilities: [{ kind: "llm-inference" }], tools: toolIds.map((id) => ({ id, version: "^1.0.0" })), retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId };
  const response = await api("POST", "/v1/agents", body);
  expect(response.status, response.text).toBe(201);
  return { id: body.id, version: body.version };
}

async function serviceKey(): Promise<string> {
  const minted = await api("POST", "/v1/tokens", { name: unique("svc"), serviceAccount: { name: unique("robot"), role: "member" } });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.key;
}

async function settled(runId: string): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await api("GET", `/v1/runs/${runId}`);
    if (["completed", "failed", "cancelled"].includes(response.body.status)) return response.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish: ${response.text}`);
    await sleep(50);
  }
}

async function pendingApproval(runId: string): Promise<any> {
  const list = await api("GET", `/v1/approvals?runId=${runId}&status=pending`);
  expect(list.body.data, list.text).toHaveLength(1);
  return list.body.data[0];
}

type Wait = "approval" | "pause" | "unattended";

/**
 * One model step `[waiting call, read × n]`: what the tools' server saw, with the moment the wait was resolved by the
 * test (a person's decision, the paused call's answer).
 */
async function stepAfterWait(kind: Wait, reads: number) {
  const run = unique("run");
  const readTool = await httpTool(`read-${run}`);
  let waitingTool: string;
  let waitingArguments: Record<string, unknown>;
  if (kind === "pause") {
    waitingTool = await pausingTool();
    waitingArguments = { notify: `${recorder.origin}/notify-${run}`, ref: run };
  } else {
    waitingTool = await httpTool(`wait-${run}`, kind === "approval" ? { mutating: true } : { needsApprovalWhenUnattended: true });
    waitingArguments = { word: "first" };
  }
  const steps = [{ toolCalls: [{ name: waitingTool, arguments: waitingArguments }, ...Array.from({ length: reads }, (_, i) => ({ name: readTool, arguments: { word: `read-${i}` } }))] }, { text: "done" }];
  const key = kind === "unattended" ? await serviceKey() : tenant.key;
  const started = await api("POST", "/v1/runs", { agent: await agent([waitingTool, readTool]), input: { userMessage: script(...steps) } }, key);
  expect(started.status, started.text).toBe(201);
  expect(started.body.status).toBe("suspended");
  // While the run waits, nothing after the waiting call may have started.
  await sleep(300);
  const readsWhileWaiting = seen.filter((request) => request.path === `/read-${run}`).length;
  let resolvedAt: number;
  if (kind === "pause") {
    const handed = seen.find((request) => request.path === `/notify-${run}`)?.body;
    expect(handed?.token).toMatch(/^kgw_/);
    resolvedAt = performance.now();
    const answered = await call("POST", `/v1/waits/${handed.waitId}/complete`, { body: { token: handed.token, output: { verdict: "yes" } }, baseUrl: server.baseUrl });
    expect(answered.status, answered.text).toBe(200);
  } else {
    const approval = await pendingApproval(started.body.id);
    resolvedAt = performance.now();
    const decided = await api("POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve" });
    expect(decided.status, decided.text).toBe(200);
  }
  const finished = await settled(started.body.id);
  expect(finished.status, JSON.stringify(finished.failure)).toBe("completed");
  const waited = seen.find((request) => request.path === `/wait-${run}`);
  const readRequests = seen.filter((request) => request.path === `/read-${run}`);
  return { readsWhileWaiting, resolvedAt, waited, readRequests };
}

describe.each([2, 8])("a model step whose first call waits, then %i read-only calls", (reads) => {
  it.each<[string, Wait]>([
    ["a person's approval", "approval"],
    ["its paused answer", "pause"],
    ["the approval an unattended run asks for", "unattended"],
  ])("the reads start only after the call waiting for %s has finished", async (_, kind) => {
    const { readsWhileWaiting, resolvedAt, waited, readRequests } = await stepAfterWait(kind, reads);
    expect(readsWhileWaiting).toBe(0);
    expect(readRequests.map((request) => request.body.word).sort()).toEqual(Array.from({ length: reads }, (_, i) => `read-${i}`).sort());
    const firstRead = Math.min(...readRequests.map((request) => request.arrivedAt));
    expect(firstRead).toBeGreaterThan(resolvedAt);
    if (kind !== "pause") {
      // The waiting call itself ran after the decision, and had answered before the first read arrived.
      expect(waited, "the approved call reached the server").toBeDefined();
      expect(waited!.arrivedAt).toBeGreaterThan(resolvedAt);
      expect(firstRead).toBeGreaterThanOrEqual(waited!.answeredAt);
    }
  });
});
