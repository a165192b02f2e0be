/**
 * The audit log (GET /v1/audit: who, when, what; filters; newest first; pages; tenant admins only, a narrowed admin
 * key sees its project's entries) and notification endpoints (a test event delivered signed to a local receiver that
 * answers 500 first, retried, verified with the standardwebhooks library; the Slack format; the network rules).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { call, expectError, newTenant, type TestTenant } from "./helpers/api";
import { registerAgent, sleep } from "./helpers/kernel";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let tenant: TestTenant;
let memberKey: string;

beforeAll(async () => {
  tenant = await newTenant("audit");
  const member = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "member", serviceAccount: { name: "member-bot", role: "member" } } });
  memberKey = member.body.key;
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("audit", () => {
  it("records key, connection, trigger and notification endpoint changes with who, when and what; filters; pages newest first", async () => {
    const startedAt = new Date(Date.now() - 1000).toISOString();
    const agent = await registerAgent(tenant);
    const minted = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "audited" } });
    await call("POST", `/v1/tokens/${minted.body.id}/revoke`, { key: tenant.key });
    const connection = await call("POST", "/v1/connections", { key: tenant.key, body: { app: "google", permissions: ["gmail.send"], token: "audit-token-secret-1", owner: "person" } });
    await call("DELETE", `/v1/connections/${connection.body.id}`, { key: tenant.key });
    const schedule = await call("POST", "/v1/schedules", { key: tenant.key, body: { name: "nightly", cron: "0 3 * * *", timezone: "UTC", agent: { id: agent.id }, input: { userMessage: "x" }, toolsAllowedUnattended: ["test.send"] } });
    await call("POST", `/v1/schedules/${schedule.body.id}/pause`, { key: tenant.key });
    await call("POST", `/v1/schedules/${schedule.body.id}/resume`, { key: tenant.key });
    await call("POST", `/v1/schedules/${schedule.body.id}/unregister`, { key: tenant.key });
    const webhook = await call("POST", "/v1/webhooks", { key: tenant.key, body: { name: "hook", agent: { id: agent.id }, input: { userMessage: "x" } } });
    await call("POST", `/v1/webhooks/${webhook.body.id}/pause`, { key: tenant.key });
    const endpoint = await call("POST", "/v1/notification-endpoints", { key: tenant.key, body: { url: "http://127.0.0.1:9/hook", format: "slack" } });
    expect(endpoint.status).toBe(201);
    await call("DELETE", `/v1/notification-endpoints/${endpoint.body.id}`, { key: tenant.key });

    const all = await call("GET", "/v1/audit?limit=100", { key: tenant.key });
    expect(all.status).toBe(200);
    const actions = all.body.data.map((entry: any) => entry.action);
    for (const action of ["api-key.created", "api-key.revoked", "connection.created", "connection.deleted", "schedule.created", "schedule.tools-allowed-unattended-set", "schedule.paused", "schedule.resumed", "schedule.unregistered", "webhook.created", "webhook.paused", "notification-endpoint.created", "notification-endpoint.deleted"]) {
      expect(actions).toContain(action);
    }
    // Newest first; each entry says who and when.
    const times = all.body.data.map((entry: any) => Date.parse(entry.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(actions.indexOf("schedule.unregistered")).toBeLessThan(actions.indexOf("schedule.paused"));
    const paused = all.body.data.find((entry: any) => entry.action === "schedule.paused");
    expect(paused).toMatchObject({ subjectType: "schedule", subjectId: schedule.body.id, projectId: tenant.projectId, actorId: tenant.adminUserId });
    expect(all.body.data.find((entry: any) => entry.action === "schedule.tools-allowed-unattended-set").data).toEqual({ toolsAllowedUnattended: ["test.send"] });
    expect(all.text).not.toContain("audit-token-secret-1");
    expect(all.text).not.toContain(webhook.body.secret);
    expect(all.text).not.toContain(minted.body.key);

    const byAction = await call("GET", "/v1/audit?action=schedule.paused", { key: tenant.key });
    expect(byAction.body.data.map((entry: any) => entry.subjectId)).toEqual([schedule.body.id]);
    const bySubject = await call("GET", `/v1/audit?subjectType=connection&subjectId=${connection.body.id}`, { key: tenant.key });
    expect(bySubject.body.data.map((entry: any) => entry.action)).toEqual(["connection.deleted", "connection.created"]);
    const byActor = await call("GET", `/v1/audit?actorId=${tenant.adminUserId}&limit=100`, { key: tenant.key });
    expect(byActor.body.data.length).toBe(all.body.data.length);
    expect((await call("GET", `/v1/audit?actorId=${crypto.randomUUID()}`, { key: tenant.key })).body.data).toEqual([]);
    expect((await call("GET", `/v1/audit?until=${encodeURIComponent(startedAt)}&subjectType=schedule`, { key: tenant.key })).body.data).toEqual([]);
    expect((await call("GET", `/v1/audit?since=${encodeURIComponent(startedAt)}&subjectType=schedule`, { key: tenant.key })).body.data.length).toBe(5);

    // Pages: limit 2 with cursors walk the same entries in the same order.
    const walked: string[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await call("GET", `/v1/audit?limit=2&subjectType=schedule${cursor ? `&cursor=${cursor}` : ""}`, { key: tenant.key });
      walked.push(...page.body.data.map((entry: any) => entry.id));
      if (!page.body.hasMore) break;
      cursor = page.body.nextCursor;
    }
    expect(walked).toEqual((await call("GET", "/v1/audit?subjectType=schedule", { key: tenant.key })).body.data.map((entry: any) => entry.id));
    expectError(await call("GET", "/v1/audit?since=yesterday", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/audit?colour=red", { key: tenant.key }), 400, "unknown-field");
  });

  it("only tenant admins read it; an admin's narrowed key sees its project's entries only; another tenant sees none", async () => {
    expectError(await call("GET", "/v1/audit", { key: memberKey }), 403, "permission-denied");
    const otherProject = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "elsewhere" } });
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "narrow", projectId: otherProject.body.id } });
    const entries = await call("GET", "/v1/audit?limit=100", { key: narrowed.body.key });
    expect(entries.status).toBe(200);
    expect(entries.body.data.every((entry: any) => entry.projectId === otherProject.body.id)).toBe(true);
    expect(entries.body.data.map((entry: any) => entry.action)).toContain("api-key.created");
    const other = await newTenant("audit other");
    const foreign = await call("GET", "/v1/audit?limit=100", { key: other.key });
    expect(foreign.body.data.some((entry: any) => entry.subjectId === narrowed.body.id)).toBe(false);
  });
});

describe("notification endpoints", () => {
  let receiver: RecordingServer;
  let answered = 0;
  beforeAll(async () => {
    receiver = await startRecordingServer((request, response) => {
      answered += 1;
      // The first delivery attempt of each message fails with a 500.
      const id = String(request.headers["webhook-id"]);
      const seen = receiver.requests.filter((r) => r.headers["webhook-id"] === id).length;
      sendJson(response, seen === 1 ? 500 : 200, { ok: seen !== 1 });
    });
  });
  afterAll(async () => receiver.close());

  it("a test notification is delivered signed, retried after a 500, and verifies with the library", async () => {
    const created = await call("POST", "/v1/notification-endpoints", { key: tenant.key, body: { url: `${receiver.origin}/notify`, format: "standard-webhooks", events: ["approval.requested"] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ projectId: tenant.projectId, format: "standard-webhooks", events: ["approval.requested"] });
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_/);
    const read = await call("GET", `/v1/notification-endpoints/${created.body.id}`, { key: tenant.key });
    expect(read.body.secret).toBeUndefined();
    expect(read.text).not.toContain(secret.slice(6));

    const test = await call("POST", `/v1/notification-endpoints/${created.body.id}/test`, { key: tenant.key });
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ type: "notification.test", outcome: "pending", attempts: 0 });
    const delivered = await waitFor("the delivery", async () => {
      const list = await call("GET", `/v1/notification-endpoints/${created.body.id}/deliveries`, { key: tenant.key });
      const delivery = list.body.data.find((d: any) => d.id === test.body.id);
      return delivery?.outcome === "delivered" && delivery;
    });
    expect(delivered).toMatchObject({ attempts: 2, statusCodes: [500, 200], lastError: null, nextAttemptAt: null });
    const requests = receiver.requests.filter((r) => r.headers["webhook-id"] === test.body.messageId);
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as any;
      expect(payload).toMatchObject({ type: "notification.test", data: { link: expect.stringContaining(`/v1/notification-endpoints/${created.body.id}`) } });
      expect(request.body).not.toContain(secret.slice(6));
    }
    // A forged signature does not verify.
    expect(() => new Webhook(`whsec_${Buffer.from("y".repeat(32)).toString("base64")}`).verify(requests[1].body, requests[1].headers as Record<string, string>)).toThrow();
  });

  it("the slack format sends a Slack-compatible {text, blocks} message", async () => {
    const created = await call("POST", "/v1/notification-endpoints", { key: tenant.key, body: { url: `${receiver.origin}/slack`, format: "slack" } });
    const test = await call("POST", `/v1/notification-endpoints/${created.body.id}/test`, { key: tenant.key });
    await waitFor("the slack delivery", async () => receiver.requests.filter((r) => r.headers["webhook-id"] === test.body.messageId).length >= 2);
    const body = JSON.parse(receiver.requests.filter((r) => r.url === "/slack").at(-1)!.body);
    expect(typeof body.text).toBe("string");
    expect(body.text).toContain("Test notification");
    expect(Array.isArray(body.blocks)).toBe(true);
    expect(body.blocks[0]).toMatchObject({ type: "section", text: { type: "mrkdwn" } });
    expect(body.blocks[1].elements[0].url).toContain(`/v1/notification-endpoints/${created.body.id}`);
  });

  it("refuses metadata addresses and bad URLs, needs a project admin, and another tenant's endpoint is 404", async () => {
    expectError(await call("POST", "/v1/notification-endpoints", { key: tenant.key, body: { url: "http://169.254.169.254/latest", format: "slack" } }), 403, "notification-endpoint-refused");
    expectError(await call("POST", "/v1/notification-endpoints", { key: tenant.key, body: { url: "ftp://example.com/x", format: "slack" } }), 400, "bad-input");
    expectError(await call("POST", "/v1/notification-endpoints", { key: tenant.key, body: { url: `${receiver.origin}/x`, format: "email" } }), 400, "bad-input");
    expectError(await call("POST", "/v1/notification-endpoints", { key: memberKey, body: { url: `${receiver.origin}/x`, format: "slack" } }), 403, "permission-denied");
    const mine = await call("POST", "/v1/notification-endpoints", { key: tenant.key, body: { url: `${receiver.origin}/x`, format: "slack" } });
    const other = await newTenant("notifications other");
    expectError(await call("GET", `/v1/notification-endpoints/${mine.body.id}`, { key: other.key }), 404, "not-found");
    expectError(await call("POST", `/v1/notification-endpoints/${mine.body.id}/test`, { key: other.key }), 404, "not-found");
    expect(answered).toBeGreaterThan(0);
  });
});
