/**
 * Expiry, on a server of this file's own with short waits (KINDGI_APPROVAL_TTL_MS=1500, a sweeper every 200 ms):
 * an approval nobody decides expires and goes back to the model as a rejection with reason `expired` (the default
 * KINDGI_APPROVAL_EXPIRED=reject), and the turn continues; an agent that chose `fail` (PATCH /v1/agents/{agentId})
 * fails its turn instead; a paused call whose wait passes fails.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, tenantOn } from "./helpers/api";
import { script, sleep } from "./helpers/kernel";
import { startOwnServer, type OwnServer, type RunningServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let own: OwnServer;
let server: RunningServer;
let receiver: RecordingServer;
let tenant: { key: string; projectId: string };

beforeAll(async () => {
  receiver = await startRecordingServer((request, response) => sendJson(response, 200, { ok: true }));
  own = await startOwnServer({ KINDGI_APPROVAL_TTL_MS: "1500", KINDGI_APPROVAL_SWEEP_MS: "200" });
  server = own.server;
  tenant = await tenantOn(server.baseUrl, own.operatorToken, "expiry");
}, 180_000);

afterAll(async () => {
  await own?.stop();
  await receiver?.close();
});

const api = (method: string, urlPath: string, body?: unknown) => call(method, urlPath, { key: tenant.key, body, baseUrl: server.baseUrl });

async function waitFor(runId: string, done: (run: any) => boolean, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await api("GET", `/v1/runs/${runId}`);
    if (done(response.body)) return response.body;
    if (Date.now() > deadline) throw new Error(`run ${runId}: ${response.text}`);
    await sleep(100);
  }
}

async function register(kind: "tools" | "agents", body: Record<string, unknown>) {
  const response = await api("POST", `/v1/${kind}`, { projectId: tenant.projectId, ...body });
  expect(response.status, response.text).toBe(201);
}

describe("expiry", () => {
  it("an expired approval reaches the model as a rejection with reason expired, and the turn continues", async () => {
    await register("tools", { id: "acme.send", description: "Sends.", version: "1.0.0", input: { type: "object" }, output: { type: "object" }, network: { kind: "allowlist", hosts: [receiver.hostPort] }, spec: { kind: "http", method: "POST", urlTemplate: `${receiver.origin}/send`, requestBody: { kind: "json-input" } } });
    await register("agents", { id: "acme.sender", version: "1.0.0", name: "Sender", instructions: "Send.", capabilities: [{}], tools: [{ id: "acme.send", version: "1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" });
    const started = await api("POST", "/v1/runs", { agent: { id: "acme.sender" }, input: { userMessage: script({ toolCalls: [{ name: "acme.send", arguments: { to: "x" } }] }, { text: "nobody answered" }) } });
    expect(started.body.status).toBe("suspended");
    const [approval] = (await api("GET", `/v1/approvals?runId=${started.body.id}`)).body.data;
    expect(Date.parse(approval.expiresAt) - Date.parse(approval.requestedAt)).toBe(1500);
    const done = await waitFor(started.body.id, (run) => run.status === "completed");
    expect(done.output).toBe("nobody answered");
    expect((await api("GET", `/v1/approvals/${approval.id}`)).body.status).toBe("expired");
    const events = (await api("GET", `/v1/runs/${started.body.id}/journal?limit=1000`)).body.data;
    expect(events.find((event: any) => event.type === "approval-decided").data).toMatchObject({ decision: "expired" });
    const result = events.find((event: any) => event.type === "tool-call-completed").data;
    expect(result).toMatchObject({ ok: false, error: { reason: "approval-expired" } });
    expect(result.error.message).toContain("expired");
    expect(receiver.requests.filter((request) => request.url === "/send")).toEqual([]);
    expectError(await api("POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve" }), 409, "run-already-terminal");
  });

  it("an agent may choose fail instead: its expired approval fails the turn with approval-expired; the choice is checked, audited and fixed on each approval", async () => {
    await register("tools", { id: "acme.post", description: "Posts.", version: "1.0.0", input: { type: "object" }, output: { type: "object" }, network: { kind: "allowlist", hosts: [receiver.hostPort] }, spec: { kind: "http", method: "POST", urlTemplate: `${receiver.origin}/post`, requestBody: { kind: "json-input" } } });
    await register("agents", { id: "acme.strict", version: "1.0.0", name: "Strict", instructions: "Post.", capabilities: [{}], tools: [{ id: "acme.post", version: "1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" });
    expect((await api("GET", "/v1/agents/acme.strict")).body).toMatchObject({ onApprovalExpired: null, effectiveOnApprovalExpired: "reject" });
    // Bad bodies are refused at their field and change nothing; a viewer may not change it.
    expectError(await api("PATCH", "/v1/agents/acme.strict", { onApprovalExpired: "later" }), 400, "bad-input");
    const bad = await api("PATCH", "/v1/agents/acme.strict", { onApprovalExpired: "later" });
    expect(bad.body.error.details.issues).toEqual([expect.objectContaining({ path: "/onApprovalExpired" })]);
    expectError(await api("PATCH", "/v1/agents/acme.strict", {}), 400, "bad-input");
    expectError(await api("PATCH", "/v1/agents/acme.strict", { onApprovalExpired: "fail", extra: 1 }), 400, "unknown-field");
    expectError(await api("PATCH", "/v1/agents/acme.nobody", { onApprovalExpired: "fail" }), 404, "not-found");
    const viewer = await api("POST", "/v1/tokens", { name: "viewer", serviceAccount: { name: "watcher", role: "viewer" } });
    expect(viewer.status, viewer.text).toBe(201);
    expectError(await call("PATCH", "/v1/agents/acme.strict", { key: viewer.body.key, body: { onApprovalExpired: "fail" }, baseUrl: server.baseUrl }), 403, "permission-denied");
    expect((await api("GET", "/v1/agents/acme.strict")).body.onApprovalExpired).toBeNull();

    // An approval asked before the change keeps the choice it was asked with.
    const before = await api("POST", "/v1/runs", { agent: { id: "acme.strict" }, input: { userMessage: script({ toolCalls: [{ name: "acme.post", arguments: { n: 1 } }] }, { text: "went on" }) } });
    expect(before.body.status).toBe("suspended");
    const changed = await api("PATCH", "/v1/agents/acme.strict", { onApprovalExpired: "fail" });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ agentId: "acme.strict", onApprovalExpired: "fail", effectiveOnApprovalExpired: "fail", latestVersion: "1.0.0" });
    const started = await api("POST", "/v1/runs", { agent: { id: "acme.strict" }, input: { userMessage: script({ toolCalls: [{ name: "acme.post", arguments: { n: 2 } }] }, { text: "never said" }) } });
    expect(started.body.status).toBe("suspended");
    const [early] = (await api("GET", `/v1/approvals?runId=${before.body.id}`)).body.data;
    const [approval] = (await api("GET", `/v1/approvals?runId=${started.body.id}`)).body.data;
    expect(early.onExpired).toBe("reject");
    expect(approval.onExpired).toBe("fail");

    const failed = await waitFor(started.body.id, (run) => run.status === "failed");
    expect(failed.failure).toMatchObject({ code: "approval-expired", details: { approvalId: approval.id } });
    expect(failed.output ?? null).toBeNull();
    expect((await waitFor(before.body.id, (run) => run.status === "completed")).output).toBe("went on");
    expect(receiver.requests.filter((request) => request.url === "/post")).toEqual([]);

    // Setting the same value again records nothing; null goes back to the deployment's default.
    expect((await api("PATCH", "/v1/agents/acme.strict", { onApprovalExpired: "fail" })).status).toBe(200);
    const audit = (await api("GET", "/v1/audit?action=agent.approval-expiry-changed&subjectId=acme.strict")).body.data;
    expect(audit).toEqual([expect.objectContaining({ action: "agent.approval-expiry-changed", subjectType: "agent", subjectId: "acme.strict", data: { from: null, to: "fail" } })]);
    expect((await api("PATCH", "/v1/agents/acme.strict", { onApprovalExpired: null })).body).toMatchObject({ onApprovalExpired: null, effectiveOnApprovalExpired: "reject" });
  });

  it("a paused call whose wait passes fails (wait-expired); its link then takes no answer", async () => {
    await register("tools", {
      id: "acme.ask",
      description: "Asks another system.",
      version: "1.0.0",
      input: { type: "object", properties: { notify: { type: "string" }, timeoutMs: { type: "integer" } }, required: ["notify"] },
      output: { type: "object" },
      mutating: false,
      pauses: true,
      network: { kind: "allowlist", hosts: [receiver.hostPort] },
      codeArtifactRef: { kind: "filesystem", modulePath: path.join(own.handlers, "pauser.mjs") },
    });
    await register("agents", { id: "acme.asker", version: "1.0.0", name: "Asker", instructions: "Ask.", capabilities: [{}], tools: [{ id: "acme.ask", version: "1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" });
    const started = await api("POST", "/v1/runs", { agent: { id: "acme.asker" }, input: { userMessage: script({ toolCalls: [{ name: "acme.ask", arguments: { notify: `${receiver.origin}/notify`, timeoutMs: 1000 } }] }, { text: "never" }) } });
    expect(started.body.status).toBe("suspended");
    const done = await waitFor(started.body.id, (run) => run.status === "failed");
    expect(done.failure).toMatchObject({ code: "tool-invocation-failed", details: { reason: "wait-expired" } });
    const handed = JSON.parse(receiver.requests.find((request) => request.url === "/notify")!.body);
    expectError(await call("POST", `/v1/waits/${handed.waitId}/complete`, { body: { token: handed.token, output: {} }, baseUrl: server.baseUrl }), 409, "wait-not-pending");
  });
});
