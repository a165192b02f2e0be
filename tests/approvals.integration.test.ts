/**
 * Approvals over HTTP with the scripted provider, on a server of this file's own (pack handlers need NODE_ENV=test,
 * and the tampering test changes its database): the gate (read-only passes, mutating asks, grants — conditional
 * ones too — and unattended runs that ignore them), decisions (approve, edited arguments, reject back to the model,
 * withdraw, the same decision twice, two reviewers at once, who may decide), session approvals after
 * hitlAfterTurns, the inbox stream, paused handler calls answered through their completion link, and an approval
 * whose arguments were changed in the database refused.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { call, expectError, type TestTenant } from "./helpers/api";
import { script, sleep } from "./helpers/kernel";
import { freshPostgresDatabase, newOperatorToken, root, startServer, type RunningServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

const operatorToken = newOperatorToken();
let server: RunningServer;
let database: { url: string; drop: () => Promise<void> } | null = null;
let folder: string;
let receiver: RecordingServer;
let tenant: TestTenant;
const secretsKey = randomBytes(32).toString("base64");
const env = () => ({ NODE_ENV: "test", DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_DEV_PROVIDERS: "1", KINDGI_SECRETS_KEY: secretsKey, KINDGI_NOTIFICATIONS_ALLOW_PRIVATE_URLS: "1" });

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-approvals-"));
  fs.cpSync(path.join(root, "tests/fixtures/handlers"), folder, { recursive: true });
  receiver = await startRecordingServer((request, response) => sendJson(response, 200, { received: request.body ? JSON.parse(request.body) : null }));
  if (process.env.KINDGI_TEST_DATABASE_URL) database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL);
  server = await startServer({ env: env() });
  const created = await call("POST", "/v1/tenants", { key: operatorToken, body: { name: "approvals" }, baseUrl: server.baseUrl });
  expect(created.status).toBe(201);
  tenant = { tenantId: created.body.tenant.id, projectId: created.body.project.id, key: created.body.apiKey.key, adminUserId: created.body.admin.id };
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await database?.drop();
  if (server?.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

const api = (method: string, urlPath: string, body?: unknown, key = tenant.key) => call(method, urlPath, { key, body, baseUrl: server.baseUrl });

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

/** An HTTP tool posting its input to the recording server at `/<tag>`. */
async function tool(overrides: Record<string, unknown> = {}, input?: Record<string, unknown>): Promise<string> {
  const id = unique("acme.tool");
  const manifest = {
    id,
    description: "Sends its input to the test server.",
    version: "1.0.0",
    input: input ?? { type: "object", properties: { word: { type: "string" }, amount: { type: "number" } }, additionalProperties: false },
    output: { type: "object" },
    effects: [{ kind: "external-side-effect", resource: "external:test" }],
    network: { kind: "allowlist", hosts: [receiver.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${receiver.origin}/${id}`, requestBody: { kind: "json-input" } },
    projectId: tenant.projectId,
    ...overrides,
  };
  const response = await api("POST", "/v1/tools", manifest);
  expect(response.status, response.text).toBe(201);
  return id;
}

async function agent(toolIds: string[], overrides: Record<string, unknown> = {}): Promise<{ id: string; version: string }> {
  const body = { id: unique("acme.agent"), version: "1.0.0", name: "Agent", instructions: "Act.", capabilities: [{ kind: "llm-inference" }], tools: toolIds.map((id) => ({ id, version: "^1.0.0" })), retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId, ...overrides };
  const response = await api("POST", "/v1/agents", body);
  expect(response.status, response.text).toBe(201);
  return { id: body.id, version: body.version };
}

const callsTo = (toolId: string) => receiver.requests.filter((request) => request.url === `/${toolId}`).map((request) => JSON.parse(request.body));

async function run(agentRef: { id: string }, steps: unknown[], extra: { key?: string; conversationId?: string } = {}) {
  const response = await api("POST", "/v1/runs", { agent: agentRef, input: { userMessage: script(...steps), ...(extra.conversationId ? { conversationId: extra.conversationId } : {}) } }, extra.key);
  expect([201, 202], response.text).toContain(response.status);
  return response.body;
}

async function waitFor(runId: string, done: (run: any) => boolean, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await api("GET", `/v1/runs/${runId}`);
    if (response.status === 200 && done(response.body)) return response.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not get there: ${response.text}`);
    await sleep(50);
  }
}

const finished = (run: any) => ["completed", "failed", "cancelled"].includes(run.status);

async function pendingOf(runId: string): Promise<any> {
  const list = await api("GET", `/v1/approvals?runId=${runId}&status=pending`);
  expect(list.status, list.text).toBe(200);
  expect(list.body.data).toHaveLength(1);
  return list.body.data[0];
}

async function journal(runId: string): Promise<any[]> {
  const response = await api("GET", `/v1/runs/${runId}/journal?limit=1000`);
  expect(response.status).toBe(200);
  return response.body.data;
}

const decide = (approvalId: string, body: Record<string, unknown>, key = tenant.key) => api("POST", `/v1/approvals/${approvalId}/complete`, body, key);

async function serviceKey(role: "member" | "viewer" = "member"): Promise<string> {
  const minted = await api("POST", "/v1/tokens", { name: unique("svc"), serviceAccount: { name: unique("robot"), role } });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.key;
}

describe("the approval gate", () => {
  it("a read-only call passes without asking", async () => {
    const toolId = await tool({ mutating: false });
    const started = await run(await agent([toolId]), [{ toolCalls: [{ name: toolId, arguments: { word: "read" } }] }, { text: "done" }]);
    expect(started.status).toBe("completed");
    expect(callsTo(toolId)).toEqual([{ word: "read" }]);
    expect((await api("GET", `/v1/approvals?runId=${started.id}`)).body.data).toEqual([]);
  });

  it("a mutating call (mutating absent) asks; the run is suspended until a person approves, then the call runs once and the turn completes", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const started = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "pay" } }] }, { text: "paid" }]);
    expect(started.status).toBe("suspended");
    expect(callsTo(toolId)).toEqual([]);
    const approval = await pendingOf(started.id);
    expect(approval).toMatchObject({ kind: "tool-call", status: "pending", runId: started.id, callId: "0.0", agent: agentRef, tool: { id: toolId, version: "1.0.0" }, reason: "mutating", arguments: { word: "pay" }, effects: [{ kind: "external-side-effect", resource: "external:test" }], startedBy: tenant.adminUserId, origin: { kind: "api-key" }, decidedBy: null });
    expect(approval.argumentsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(approval.expiresAt) - Date.parse(approval.requestedAt)).toBe(24 * 60 * 60 * 1000);
    expect((await api("GET", `/v1/approvals/${approval.id}`)).body).toEqual(approval);

    const decided = await decide(approval.id, { decision: "approve", rationale: "fine" });
    expect(decided.status, decided.text).toBe(200);
    expect(decided.body).toMatchObject({ status: "approved", decidedBy: tenant.adminUserId, rationale: "fine" });
    const done = await waitFor(started.id, finished);
    expect(done).toMatchObject({ status: "completed", output: "paid" });
    expect(callsTo(toolId)).toEqual([{ word: "pay" }]);
    const types = (await journal(started.id)).map((event) => event.type);
    expect(types.slice(types.indexOf("model-called"))).toEqual(["model-called", "approval-requested", "approval-decided", "tool-call-started", "tool-call-completed", "model-called", "run-completed"]);

    // The same decision again: 200 with the current state; a different one: 409; on the finished run still 409.
    expect((await decide(approval.id, { decision: "approve" })).body).toMatchObject({ id: approval.id, status: "approved", rationale: "fine" });
    expectError(await decide(approval.id, { decision: "reject" }), 409, "run-already-terminal");
  });

  it("a rejection goes back to the model with the rationale and the turn continues; the tool is never called", async () => {
    const toolId = await tool();
    const started = await run(await agent([toolId]), [{ toolCalls: [{ name: toolId, arguments: { word: "delete" } }] }, { text: "understood" }]);
    const approval = await pendingOf(started.id);
    expect((await decide(approval.id, { decision: "reject", rationale: "not today" })).body.status).toBe("rejected");
    const done = await waitFor(started.id, finished);
    expect(done).toMatchObject({ status: "completed", output: "understood" });
    expect(callsTo(toolId)).toEqual([]);
    const completed = (await journal(started.id)).find((event) => event.type === "tool-call-completed");
    expect(completed.data).toMatchObject({ ok: false, error: { reason: "approval-rejected" } });
    expect(completed.data.error.message).toContain("not today");
    expectError(await decide(approval.id, { decision: "approve" }), 409, "run-already-terminal");
  });

  it("an edited approval runs with the edited arguments (validated first: bad ones are 400 and nothing is recorded)", async () => {
    const toolId = await tool();
    const started = await run(await agent([toolId]), [{ toolCalls: [{ name: toolId, arguments: { word: "original", amount: 900 } }] }, { text: "ok" }]);
    const approval = await pendingOf(started.id);
    const bad = expectError(await decide(approval.id, { decision: "approve", arguments: { word: 5 } }), 400, "validation-failed");
    expect(bad.details.issues[0].path).toBe("/arguments/word");
    expect((await api("GET", `/v1/approvals/${approval.id}`)).body).toMatchObject({ status: "pending", editedArguments: null });
    const decided = await decide(approval.id, { decision: "approve", arguments: { word: "edited", amount: 90 } });
    expect(decided.body).toMatchObject({ status: "approved", arguments: { word: "original", amount: 900 }, editedArguments: { word: "edited", amount: 90 } });
    await waitFor(started.id, finished);
    expect(callsTo(toolId)).toEqual([{ word: "edited", amount: 90 }]);
    const decidedEvent = (await journal(started.id)).find((event) => event.type === "approval-decided");
    expect(decidedEvent.data).toMatchObject({ decision: "approved", edited: true, arguments: { word: "edited", amount: 90 } });
  });

  it("approve and remember creates a grant: the next call passes; revoked, the one after asks again", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const first = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "one" } }] }, { text: "ok" }]);
    const approval = await pendingOf(first.id);
    const decided = await decide(approval.id, { decision: "approve", remember: true });
    expect(decided.body.grantId).toEqual(expect.any(String));
    await waitFor(first.id, finished);
    const grants = await api("GET", `/v1/approval-grants?agentId=${agentRef.id}`);
    expect(grants.body.data).toEqual([expect.objectContaining({ id: decided.body.grantId, agentId: agentRef.id, toolId, condition: null, approvalId: approval.id, revokedAt: null })]);

    const second = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "two" } }] }, { text: "ok" }]);
    expect(second.status).toBe("completed");
    const revoked = await api("POST", `/v1/approval-grants/${decided.body.grantId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect((await api("POST", `/v1/approval-grants/${decided.body.grantId}/revoke`)).body.revokedAt).toBe(revoked.body.revokedAt);
    const third = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "three" } }] }, { text: "ok" }]);
    expect(third.status).toBe("suspended");
    expect(callsTo(toolId)).toEqual([{ word: "one" }, { word: "two" }]);
    expect((await api("GET", `/v1/approval-grants?agentId=${agentRef.id}&revoked=false`)).body.data).toEqual([]);

    // The decision, the grant and its revocation are in the audit log, with who and when.
    const audited = async (query: string) => (await api("GET", `/v1/audit?${query}`)).body.data as any[];
    const who = { actorId: tenant.adminUserId, projectId: tenant.projectId, createdAt: expect.any(String) };
    expect(await audited(`subjectType=approval&subjectId=${approval.id}`)).toEqual([
      expect.objectContaining({ ...who, action: "approval.approved", data: expect.objectContaining({ runId: first.id, toolId, edited: false, grantId: decided.body.grantId }) }),
    ]);
    expect((await audited(`subjectType=approval-grant&subjectId=${decided.body.grantId}`)).map((entry) => [entry.action, entry.actorId])).toEqual([
      ["approval-grant.revoked", tenant.adminUserId],
      ["approval-grant.created", tenant.adminUserId],
    ]);
  });

  it("the gate's decision is journaled before the wait: a grant made meanwhile does not skip the reviewer, and the run asks once", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const waiting = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "waits" } }] }, { text: "ok" }]);
    const held = await pendingOf(waiting.id);
    // Another run of the same agent and tool is approved and remembered while the first one waits.
    const other = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "other" } }] }, { text: "ok" }]);
    expect((await decide((await pendingOf(other.id)).id, { decision: "approve", remember: true })).status).toBe(200);
    await waitFor(other.id, finished);
    await sleep(300);
    // The grant applies to calls asked from now on, not to the one already waiting for a person.
    expect((await api("GET", `/v1/runs/${waiting.id}`)).body.status).toBe("suspended");
    expect((await api("GET", `/v1/approvals/${held.id}`)).body.status).toBe("pending");
    expect(callsTo(toolId)).toEqual([{ word: "other" }]);
    // Rejected, it stays rejected: the grant does not run it either, and the journal asked exactly once.
    expect((await decide(held.id, { decision: "reject", rationale: "not this one" })).status).toBe(200);
    expect((await waitFor(waiting.id, finished)).status).toBe("completed");
    expect(callsTo(toolId)).toEqual([{ word: "other" }]);
    const types = (await journal(waiting.id)).map((event) => event.type);
    expect(types.filter((type) => type === "approval-requested")).toHaveLength(1);
    expect(types.filter((type) => type === "approval-decided")).toHaveLength(1);
    expect(types).not.toContain("tool-call-started");
  });

  it("a conditional grant passes a call inside its condition and asks for the next one outside it", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const first = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "a", amount: 20 } }] }, { text: "ok" }]);
    const condition = { type: "object", properties: { amount: { type: "number", maximum: 100 } }, required: ["amount"] };
    expectError(await decide((await pendingOf(first.id)).id, { decision: "approve", remember: { condition: { type: "no-such-type" } } }), 400, "validation-failed");
    expect((await decide((await pendingOf(first.id)).id, { decision: "approve", remember: { condition } })).status).toBe(200);
    await waitFor(first.id, finished);
    const passes = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "b", amount: 100 } }, { name: toolId, arguments: { word: "c", amount: 500 } }] }, { text: "ok" }]);
    expect(passes.status).toBe("suspended");
    const asked = await pendingOf(passes.id);
    expect(asked).toMatchObject({ callId: "0.1", arguments: { word: "c", amount: 500 } });
    expect(callsTo(toolId)).toEqual([{ word: "a", amount: 20 }, { word: "b", amount: 100 }]);
    expect((await api("GET", `/v1/approval-grants?agentId=${agentRef.id}`)).body.data[0].condition).toEqual(condition);
  });

  it("an unattended run (a service account's key) asks on every call of a tool needing approval when unattended, whatever grants exist", async () => {
    const toolId = await tool({ needsApprovalWhenUnattended: true });
    const agentRef = await agent([toolId]);
    const attended = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "x" } }] }, { text: "ok" }]);
    await decide((await pendingOf(attended.id)).id, { decision: "approve", remember: true });
    await waitFor(attended.id, finished);
    expect((await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "y" } }] }, { text: "ok" }])).status).toBe("completed");

    const robot = await serviceKey();
    const whoami = await api("GET", "/v1/identity/whoami", undefined, robot);
    expect(whoami.body.user.kind).toBe("service");
    expect((await api("GET", "/v1/identity/whoami")).body.user.kind).toBe("person");
    const unattended = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "z" } }] }, { text: "ok" }], { key: robot });
    expect(unattended).toMatchObject({ status: "suspended", attended: false, origin: { kind: "service-account" } });
    const approval = await pendingOf(unattended.id);
    expect(approval).toMatchObject({ reason: "unattended", origin: { kind: "service-account" } });
    // A person must decide: the service account's own key, and a viewer, get 403.
    expectError(await decide(approval.id, { decision: "approve" }, robot), 403, "permission-denied");
    expectError(await decide(approval.id, { decision: "approve" }, await serviceKey("viewer")), 403, "permission-denied");
    expect((await decide(approval.id, { decision: "approve" })).status).toBe(200);
    await waitFor(unattended.id, finished);
    expect(callsTo(toolId).map((body) => body.word)).toEqual(["x", "y", "z"]);
  });

  it("a read-only tool using a person's connection asks in an unattended run", async () => {
    const toolId = await tool({ mutating: false, needsSpec: { connections: { mail: { app: "google", permissions: ["gmail.read"], as: "person" } } } });
    const started = await run(await agent([toolId]), [{ toolCalls: [{ name: toolId, arguments: { word: "inbox" } }] }, { text: "ok" }], { key: await serviceKey() });
    expect((await pendingOf(started.id)).reason).toBe("person-connection");
    expect((await api("POST", `/v1/runs/${started.id}/cancel`)).status).toBe(200);
  });

  it("two reviewers deciding at the same instant yield one decision; the other gets 409 or the same state", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const started = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "race" } }] }, { text: "ok" }]);
    const approval = await pendingOf(started.id);
    const [a, b] = await Promise.all([decide(approval.id, { decision: "approve", rationale: "a" }), decide(approval.id, { decision: "reject", rationale: "b" })]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 409 ? a : b;
    // The loser is told the approval was decided — or, when the winner's run already finished, that the run is.
    expect(["approval-already-decided", "run-already-terminal"]).toContain(loser.body.error.code);
    await waitFor(started.id, finished);
    expect(callsTo(toolId)).toEqual(winner.body.status === "approved" ? [{ word: "race" }] : []);

    const again = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "race2" } }] }, { text: "ok" }]);
    const second = await pendingOf(again.id);
    const same = await Promise.all([decide(second.id, { decision: "approve" }), decide(second.id, { decision: "approve" })]);
    expect(same.map((response) => response.status)).toEqual([200, 200]);
    expect(same[0].body.decidedAt).toBe(same[1].body.decidedAt);
    await waitFor(again.id, finished);
    expect(callsTo(toolId).filter((body) => body.word === "race2")).toHaveLength(1);
  });

  it("withdraw ends the run (cancelled); cancelling a run withdraws its open approval", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const first = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "w" } }] }, { text: "ok" }]);
    const approval = await pendingOf(first.id);
    expect((await decide(approval.id, { decision: "withdraw" })).body.status).toBe("withdrawn");
    expect((await api("GET", `/v1/runs/${first.id}`)).body.status).toBe("cancelled");
    expectError(await decide(approval.id, { decision: "approve" }), 409, "run-already-terminal");

    const second = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "c" } }] }, { text: "ok" }]);
    const open = await pendingOf(second.id);
    expect((await api("POST", `/v1/runs/${second.id}/cancel`)).status).toBe(200);
    expect((await api("GET", `/v1/approvals/${open.id}`)).body.status).toBe("withdrawn");
    expectError(await decide(open.id, { decision: "approve" }), 409, "run-already-terminal");
    expect(callsTo(toolId)).toEqual([]);
  });

  it("hitlAfterTurns: after N completed turns the next turn first waits for a session approval, then proceeds", async () => {
    const agentRef = await agent([], { conversationPolicy: { hitlAfterTurns: 2 } });
    const conversation = await api("POST", "/v1/conversations", { agent: agentRef });
    expect(conversation.status, conversation.text).toBe(201);
    const conversationId = conversation.body.id;
    expect((await run(agentRef, [{ text: "first" }], { conversationId })).status).toBe("completed");
    expect((await run(agentRef, [{ text: "second" }], { conversationId })).status).toBe("completed");
    const third = await run(agentRef, [{ text: "third" }], { conversationId });
    expect(third.status).toBe("suspended");
    const approval = await pendingOf(third.id);
    expect(approval).toMatchObject({ kind: "session", callId: "session", reason: "hitl-after-turns", conversationId, tool: null, arguments: null });
    expectError(await decide(approval.id, { decision: "approve", remember: true }), 400, "bad-input");
    expect((await decide(approval.id, { decision: "approve" })).status).toBe(200);
    expect(await waitFor(third.id, finished)).toMatchObject({ status: "completed", output: "third" });
    // The fourth turn (three completed) does not ask; the fifth (four completed) does, and a rejection fails it.
    expect((await run(agentRef, [{ text: "fourth" }], { conversationId })).status).toBe("completed");
    const fifth = await run(agentRef, [{ text: "fifth" }], { conversationId });
    const asked = await pendingOf(fifth.id);
    await decide(asked.id, { decision: "reject", rationale: "enough" });
    expect(await waitFor(fifth.id, finished)).toMatchObject({ status: "failed", failure: { code: "approval-rejected" } });
  });

  it("lists approvals oldest first with filters and cursor pagination; other tenants see none", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: `p${i}` } }] }, { text: "ok" }]));
    const page1 = await api("GET", `/v1/approvals?toolId=${toolId}&limit=2`);
    expect(page1.body.data.map((item: any) => item.runId)).toEqual([runs[0].id, runs[1].id]);
    expect(page1.body.hasMore).toBe(true);
    const page2 = await api("GET", `/v1/approvals?toolId=${toolId}&limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.data.map((item: any) => item.runId)).toEqual([runs[2].id]);
    expect((await api("GET", `/v1/approvals?agentId=${agentRef.id}&status=approved`)).body.data).toEqual([]);
    expectError(await api("GET", "/v1/approvals?status=maybe"), 400, "bad-input");
    const other = await call("POST", "/v1/tenants", { key: operatorToken, body: { name: "other" }, baseUrl: server.baseUrl });
    expect((await api("GET", `/v1/approvals?toolId=${toolId}`, undefined, other.body.apiKey.key)).body.data).toEqual([]);
    expectError(await api("GET", `/v1/approvals/${page1.body.data[0].id}`, undefined, other.body.apiKey.key), 404, "not-found");
    expectError(await decide(page1.body.data[0].id, { decision: "approve" }, other.body.apiKey.key), 404, "not-found");
    for (const item of runs) await api("POST", `/v1/runs/${item.id}/cancel`);
  });

  it("status=decided lists every decided approval, newest decision first with order=newest (cursor too); a bad order is 400", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: `d${i}` } }] }, { text: "ok" }]));
    const open = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "still open" } }] }, { text: "ok" }]);
    const asked = [];
    for (const item of runs) asked.push(await pendingOf(item.id));
    // Decided in another order than asked: the last asked first, then the first, then the second.
    expect((await decide(asked[2].id, { decision: "approve" })).status).toBe(200);
    expect((await decide(asked[0].id, { decision: "reject", rationale: "no" })).status).toBe(200);
    expect((await decide(asked[1].id, { decision: "approve" })).status).toBe(200);
    const newest = await api("GET", `/v1/approvals?toolId=${toolId}&status=decided&order=newest`);
    expect(newest.status, newest.text).toBe(200);
    expect(newest.body.data.map((item: any) => item.id)).toEqual([asked[1].id, asked[0].id, asked[2].id]);
    expect(newest.body.data.map((item: any) => item.status)).toEqual(["approved", "rejected", "approved"]);
    const oldest = await api("GET", `/v1/approvals?toolId=${toolId}&status=decided`);
    expect(oldest.body.data.map((item: any) => item.id)).toEqual([asked[2].id, asked[0].id, asked[1].id]);
    const page1 = await api("GET", `/v1/approvals?toolId=${toolId}&status=decided&order=newest&limit=2`);
    expect(page1.body.data.map((item: any) => item.id)).toEqual([asked[1].id, asked[0].id]);
    const page2 = await api("GET", `/v1/approvals?toolId=${toolId}&status=decided&order=newest&limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toMatchObject({ hasMore: false });
    expect(page2.body.data.map((item: any) => item.id)).toEqual([asked[2].id]);
    const pendingNewest = await api("GET", `/v1/approvals?toolId=${toolId}&status=pending&order=newest`);
    expect(pendingNewest.body.data.map((item: any) => item.runId)).toEqual([open.id]);
    const all = await api("GET", `/v1/approvals?toolId=${toolId}&order=newest`);
    expect(all.body.data.map((item: any) => item.runId)).toEqual([open.id, runs[2].id, runs[1].id, runs[0].id]);
    const bad = expectError(await api("GET", "/v1/approvals?status=decided&order=sideways"), 400, "bad-input");
    expect(bad.details.issues[0].path).toBe("/order");
    await api("POST", `/v1/runs/${open.id}/cancel`);
  });
});

/** Reads server-sent events until `until` holds for the events so far. */
async function readEvents(response: Response, until: (events: { id: string; event: string; data: any }[]) => boolean, timeoutMs = 15_000) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: { id: string; event: string; data: any }[] = [];
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  // One read at a time: a read still pending when the 500 ms check fires is awaited again, not replaced (a new read
  // would queue behind it, and the chunk the first one gets would be lost).
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  while (!until(events)) {
    if (Date.now() > deadline) throw new Error(`stream: expected events did not come (${JSON.stringify(events.map((e) => e.event))})`);
    pending ??= reader.read();
    const chunk = await Promise.race([pending, sleep(500).then(() => null)]);
    if (!chunk) continue;
    pending = null;
    if (chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = Object.fromEntries(block.split("\n").filter((line) => !line.startsWith(":") && line.includes(": ")).map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]));
      if (fields.data && fields.event) events.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) });
    }
  }
  await reader.cancel();
  return events;
}

describe("approval notifications", () => {
  it("an approval asked for and decided reaches the project's endpoint signed, with a link to it and never its arguments", async () => {
    const endpoint = await api("POST", "/v1/notification-endpoints", { url: `${receiver.origin}/notify-approvals`, format: "standard-webhooks", events: ["approval.requested", "approval.decided"] });
    expect(endpoint.status, endpoint.text).toBe(201);
    const toolId = await tool();
    const started = await run(await agent([toolId]), [{ toolCalls: [{ name: toolId, arguments: { word: "confidential-word-4711" } }] }, { text: "done" }]);
    const approval = await pendingOf(started.id);
    expect((await decide(approval.id, { decision: "approve", rationale: "fine" })).status).toBe(200);
    await waitFor(started.id, finished);
    const deadline = Date.now() + 20_000;
    let hooks = receiver.requests.filter((request) => request.url === "/notify-approvals");
    while (hooks.length < 2 && Date.now() < deadline) {
      await sleep(100);
      hooks = receiver.requests.filter((request) => request.url === "/notify-approvals");
    }
    const payloads = hooks.map((request) => new Webhook(endpoint.body.secret).verify(request.body, request.headers as Record<string, string>) as any);
    expect(payloads.map((payload) => payload.type).sort()).toEqual(["approval.decided", "approval.requested"]);
    const requested = payloads.find((payload) => payload.type === "approval.requested");
    const decided = payloads.find((payload) => payload.type === "approval.decided");
    expect(requested.data).toMatchObject({ approvalId: approval.id, runId: started.id, toolId, status: "pending", reason: "mutating", link: expect.stringMatching(new RegExp(`^https?://[^/]+/approvals/${approval.id}$`)), apiUrl: expect.stringMatching(new RegExp(`^https?://[^/]+/v1/approvals/${approval.id}$`)) });
    expect(decided.data).toMatchObject({ approvalId: approval.id, status: "approved", decidedBy: tenant.adminUserId, rationale: "fine", edited: false });
    for (const request of hooks) expect(request.body).not.toContain("confidential-word-4711");
  });
});

describe("the approval stream", () => {
  it("pushes created and decided approvals, and resumes after Last-Event-ID", async () => {
    const toolId = await tool();
    const agentRef = await agent([toolId]);
    const stream = await fetch(`${server.baseUrl}/v1/approvals/stream`, { headers: { Authorization: `Bearer ${tenant.key}` } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const started = await run(agentRef, [{ toolCalls: [{ name: toolId, arguments: { word: "s" } }] }, { text: "ok" }]);
    const approval = await pendingOf(started.id);
    // The decision comes while the client is already waiting on the stream (more than one 500 ms check of readEvents).
    const reading = readEvents(stream, (list) => list.some((event) => event.event === "approval.decided" && event.data.approval.id === approval.id));
    await sleep(1200);
    const decision = await decide(approval.id, { decision: "approve" });
    expect(decision.status, decision.text).toBe(200);
    const events = await reading;
    const mine = events.filter((event) => event.data.approval.id === approval.id);
    expect(mine.map((event) => event.event)).toEqual(["approval.requested", "approval.decided"]);
    expect(Number(mine[1].id)).toBeGreaterThan(Number(mine[0].id));

    const resumed = await fetch(`${server.baseUrl}/v1/approvals/stream`, { headers: { Authorization: `Bearer ${tenant.key}`, "Last-Event-ID": mine[0].id } });
    const later = await readEvents(resumed, (list) => list.some((event) => event.data.approval.id === approval.id));
    expect(later.filter((event) => event.data.approval.id === approval.id).map((event) => event.event)).toEqual(["approval.decided"]);
    await waitFor(started.id, finished);
  });
});

describe("pauses", () => {
  async function pausingTool(): Promise<string> {
    const id = unique("acme.pauser");
    const response = await api("POST", "/v1/tools", {
      id,
      description: "Asks another system and waits for its answer.",
      version: "1.0.0",
      input: { type: "object", properties: { notify: { type: "string" }, ref: { type: "string" }, timeoutMs: { type: "integer" } }, required: ["notify"] },
      output: { type: "object", properties: { verdict: { type: "string" } }, required: ["verdict"], additionalProperties: false },
      mutating: false,
      pauses: true,
      network: { kind: "allowlist", hosts: [receiver.hostPort] },
      codeArtifactRef: { kind: "filesystem", modulePath: path.join(folder, "pauser.mjs") },
      projectId: tenant.projectId,
    });
    expect(response.status, response.text).toBe(201);
    return id;
  }

  it("a paused call gets a wait token and a link; the answer posted there (valid against output) becomes the call's result; twice is idempotent", async () => {
    const toolId = await pausingTool();
    const ref = unique("ref");
    const started = await run(await agent([toolId]), [{ toolCalls: [{ name: toolId, arguments: { notify: `${receiver.origin}/notify`, ref } }] }, { text: "resumed" }]);
    expect(started.status).toBe("suspended");
    const handed = receiver.requests.filter((request) => request.url === "/notify").map((request) => JSON.parse(request.body)).find((body) => body.ref === ref);
    expect(handed.url).toBe(`${new URL(handed.url).origin}/v1/waits/${handed.waitId}/complete`);
    expect(handed.token).toMatch(/^kgw_/);
    const link = `/v1/waits/${handed.waitId}/complete`;
    expectError(await call("POST", link, { body: { token: "kgw_wrong", output: { verdict: "yes" } }, baseUrl: server.baseUrl }), 404, "not-found");
    const invalid = expectError(await call("POST", link, { body: { token: handed.token, output: { verdict: 7 } }, baseUrl: server.baseUrl }), 400, "validation-failed");
    expect(invalid.details.issues[0].path).toBe("/output/verdict");
    expect((await api("GET", `/v1/runs/${started.id}`)).body.status).toBe("suspended");
    const completed = await call("POST", link, { body: { token: handed.token, output: { verdict: "yes" } }, baseUrl: server.baseUrl });
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body).toMatchObject({ id: handed.waitId, runId: started.id, status: "completed", output: { verdict: "yes" } });
    const twice = await call("POST", link, { body: { token: handed.token, output: { verdict: "other" } }, baseUrl: server.baseUrl });
    expect(twice.status).toBe(200);
    expect(twice.body.output).toEqual({ verdict: "yes" });
    expect(await waitFor(started.id, finished)).toMatchObject({ status: "completed", output: "resumed" });
    const events = await journal(started.id);
    expect(events.map((event) => event.type)).toContain("wait-started");
    expect(events.find((event) => event.type === "tool-call-completed").data).toMatchObject({ ok: true, output: { verdict: "yes" } });
    expect(JSON.stringify(events)).not.toContain(handed.token);
  });
});

describe("fail closed", () => {
  it("an approval whose arguments were changed in the database is refused: the call is not run and the turn fails", async () => {
    const toolId = await tool();
    const started = await run(await agent([toolId]), [{ toolCalls: [{ name: toolId, arguments: { word: "small", amount: 1 } }] }, { text: "ok" }]);
    const approval = await pendingOf(started.id);
    const tamper = `UPDATE "Approval" SET arguments = '{"word":"small","amount":1000000}'::jsonb WHERE id = '${approval.id}'`;
    if (database) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(tamper);
      await client.end();
    } else {
      // The embedded database belongs to the server process: stop it, change the row, start it again.
      await server.stop();
      const db = new PGlite(path.join(server.dataDir as string, "pgdata"));
      await db.query(tamper);
      await db.close();
      server = await startServer({ env: env(), dataDir: server.dataDir });
    }
    expect((await api("GET", `/v1/approvals/${approval.id}`)).body.arguments).toEqual({ word: "small", amount: 1000000 });
    expect((await decide(approval.id, { decision: "approve" })).status).toBe(200);
    const done = await waitFor(started.id, finished);
    expect(done).toMatchObject({ status: "failed", failure: { code: "approval-invalid" } });
    expect(callsTo(toolId)).toEqual([]);
  });
});
