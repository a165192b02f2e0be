/**
 * Triggers over HTTP: schedules (cron and time zone checked at the field, a per-second schedule fires and records its
 * unattended run, pause stops fires, resume starts again) and webhooks (a Standard Webhooks delivery starts a run with
 * the mapped input; a bad signature, a stale timestamp and a replayed webhook-id are refused and start nothing).
 * Setting toolsAllowedUnattended needs a project admin.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { call, expectError, newTenant, type TestTenant } from "./helpers/api";
import { registerAgent, script, sleep, waitForRun } from "./helpers/kernel";

let tenant: TestTenant;
let agent: { id: string; version: string };
let memberKey: string;

beforeAll(async () => {
  tenant = await newTenant("triggers");
  agent = await registerAgent(tenant, { parameters: [{ name: "orderId", type: "string", default: "none" }] });
  const member = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "member", serviceAccount: { name: "member-bot", role: "member" } } });
  expect(member.status).toBe(201);
  memberKey = member.body.key;
});

const scheduleBody = (overrides: Record<string, unknown> = {}) => ({ name: "every second", cron: "* * * * * *", timezone: "Europe/Berlin", agent: { id: agent.id }, input: { userMessage: script({ text: "scheduled hello" }) }, ...overrides });

async function fires(key: string, scheduleId: string): Promise<any[]> {
  const response = await call("GET", `/v1/schedules/${scheduleId}/fires?limit=100`, { key });
  expect(response.status).toBe(200);
  return response.body.data;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("schedules", () => {
  it("refuses a bad cron pattern and a bad time zone at their fields", async () => {
    const badCron = expectError(await call("POST", "/v1/schedules", { key: tenant.key, body: scheduleBody({ cron: "every day at nine" }) }), 400, "validation-failed");
    expect(badCron.details.issues.map((issue: any) => issue.path)).toEqual(["/cron"]);
    const badZone = expectError(await call("POST", "/v1/schedules", { key: tenant.key, body: scheduleBody({ timezone: "Mars/Olympus_Mons" }) }), 400, "validation-failed");
    expect(badZone.details.issues.map((issue: any) => issue.path)).toEqual(["/timezone"]);
    const both = expectError(await call("POST", "/v1/schedules", { key: tenant.key, body: scheduleBody({ cron: "61 * * * *", timezone: "Nowhere" }) }), 400, "validation-failed");
    expect(both.details.issues.map((issue: any) => issue.path).sort()).toEqual(["/cron", "/timezone"]);
    expectError(await call("POST", "/v1/schedules", { key: tenant.key, body: { ...scheduleBody(), extra: 1 } }), 400, "unknown-field");
    expectError(await call("POST", "/v1/schedules", { key: tenant.key, body: scheduleBody({ agent: { id: "no.such-agent" } }) }), 404, "not-found");
    const list = await call("GET", "/v1/schedules", { key: tenant.key });
    expect(list.body.data.filter((s: any) => s.name === "every second")).toHaveLength(0);
  });

  it("a per-second schedule fires within a second or two and records its unattended run with origin schedule", async () => {
    const created = await call("POST", "/v1/schedules", { key: tenant.key, body: scheduleBody({ name: "fires" }) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "active", cron: "* * * * * *", timezone: "Europe/Berlin", agent: { id: agent.id, version: null }, toolsAllowedUnattended: [] });
    const createdAt = Date.now();
    const scheduleId = created.body.id;
    const started = await waitFor("two fires", async () => {
      const list = await fires(tenant.key, scheduleId);
      return list.filter((fire) => fire.outcome === "started").length >= 2 && list;
    });
    // The first fire came within ~2 s of creating a per-second schedule, each close to its tick.
    const oldest = started[started.length - 1];
    expect(Date.parse(oldest.firedAt) - createdAt).toBeLessThan(2500);
    for (const fire of started.filter((f) => f.outcome === "started")) expect(Date.parse(fire.firedAt) - Date.parse(fire.tick)).toBeLessThan(1500);
    expect(new Set(started.map((fire) => fire.tick)).size).toBe(started.length);
    const run = await waitForRun(tenant, oldest.runId);
    expect(run).toMatchObject({ status: "completed", attended: false, createdBy: tenant.adminUserId, output: "scheduled hello", origin: { kind: "schedule", userId: tenant.adminUserId, scheduleId, fireId: oldest.id }, toolsAllowedUnattended: [] });
    await call("POST", `/v1/schedules/${scheduleId}/unregister`, { key: tenant.key });
  });

  it("pause stops the fires, resume starts them again from the next tick", async () => {
    const created = await call("POST", "/v1/schedules", { key: tenant.key, body: scheduleBody({ name: "pausable" }) });
    const scheduleId = created.body.id;
    await waitFor("a fire", async () => (await fires(tenant.key, scheduleId)).length >= 1);
    const paused = await call("POST", `/v1/schedules/${scheduleId}/pause`, { key: tenant.key });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: "paused", nextFireAt: null });
    await sleep(300);
    const before = (await fires(tenant.key, scheduleId)).length;
    await sleep(2500);
    expect((await fires(tenant.key, scheduleId)).length).toBe(before);
    const resumed = await call("POST", `/v1/schedules/${scheduleId}/resume`, { key: tenant.key });
    expect(resumed.body.status).toBe("active");
    expect(Date.parse(resumed.body.nextFireAt)).toBeGreaterThan(Date.now() - 1000);
    await waitFor("a fire after resuming", async () => (await fires(tenant.key, scheduleId)).length > before);
    const unregistered = await call("POST", `/v1/schedules/${scheduleId}/unregister`, { key: tenant.key });
    expect(unregistered.body).toMatchObject({ status: "unregistered", nextFireAt: null });
    expectError(await call("POST", `/v1/schedules/${scheduleId}/resume`, { key: tenant.key }), 409, "trigger-unregistered");
    expect((await call("GET", `/v1/schedules/${scheduleId}`, { key: tenant.key })).body.status).toBe("unregistered");
    expect((await call("GET", "/v1/schedules", { key: tenant.key })).body.data.map((s: any) => s.id)).not.toContain(scheduleId);
  });

  it("setting toolsAllowedUnattended needs a project admin; a member may create a schedule without it", async () => {
    const denied = expectError(await call("POST", "/v1/schedules", { key: memberKey, body: scheduleBody({ name: "member", cron: "0 9 * * 1-5", toolsAllowedUnattended: ["test.send"] }) }), 403, "permission-denied");
    expect(denied.details).toMatchObject({ field: "toolsAllowedUnattended" });
    const allowed = await call("POST", "/v1/schedules", { key: memberKey, body: scheduleBody({ name: "member", cron: "0 9 * * 1-5" }) });
    expect(allowed.status).toBe(201);
    const admin = await call("POST", "/v1/schedules", { key: tenant.key, body: scheduleBody({ name: "admin", cron: "0 9 * * 1-5", toolsAllowedUnattended: ["test.send"] }) });
    expect(admin.status).toBe(201);
    expect(admin.body.toolsAllowedUnattended).toEqual(["test.send"]);
  });

  it("another tenant's schedule is 404", async () => {
    const other = await newTenant("triggers other");
    const created = await call("POST", "/v1/schedules", { key: tenant.key, body: scheduleBody({ name: "mine", cron: "0 0 1 1 *" }) });
    expectError(await call("GET", `/v1/schedules/${created.body.id}`, { key: other.key }), 404, "not-found");
    expectError(await call("POST", `/v1/schedules/${created.body.id}/pause`, { key: other.key }), 404, "not-found");
    expectError(await call("GET", `/v1/schedules/${created.body.id}/fires`, { key: other.key }), 404, "not-found");
  });
});

describe("webhooks", () => {
  let webhook: any;
  const send = (body: string, headers: Record<string, string>, id = webhook.id) => call("POST", `/v1/hooks/${id}`, { rawBody: body, headers: { "Content-Type": "application/json", ...headers } });
  const signed = (secret: string, body: string, messageId = `msg_${crypto.randomUUID()}`, at = new Date()) => ({
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  });
  const deliveries = async () => (await call("GET", `/v1/webhooks/${webhook.id}/deliveries`, { key: tenant.key })).body.data as any[];

  beforeAll(async () => {
    const created = await call("POST", "/v1/webhooks", {
      key: tenant.key,
      body: { name: "orders", agent: { id: agent.id }, input: { userMessage: '{"script":[{"text":"order {{ payload.order.id }} for {{ payload.customer }}"}]}', parameters: { orderId: "/order/id" } } },
    });
    expect(created.status).toBe(201);
    webhook = created.body;
  });

  it("answers the receiver URL and the signing secret once, never again", async () => {
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(webhook.receiverPath).toBe(`/v1/hooks/${webhook.id}`);
    expect(webhook.receiverUrl.endsWith(webhook.receiverPath)).toBe(true);
    const read = await call("GET", `/v1/webhooks/${webhook.id}`, { key: tenant.key });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(webhook.secret.slice(6));
    expect(read.body.secret).toBeUndefined();
    const list = await call("GET", "/v1/webhooks", { key: tenant.key });
    expect(list.text).not.toContain(webhook.secret.slice(6));
  });

  it("a correctly signed delivery starts an unattended run with the mapped input", async () => {
    const body = JSON.stringify({ order: { id: "A-17" }, customer: "Ada" });
    const response = await send(body, signed(webhook.secret, body));
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ webhookId: webhook.id, outcome: "started" });
    const run = await waitForRun(tenant, response.body.runId);
    expect(run).toMatchObject({
      status: "completed",
      attended: false,
      output: "order A-17 for Ada",
      input: { parameters: { orderId: "A-17" } },
      origin: { kind: "webhook", userId: tenant.adminUserId, webhookId: webhook.id, deliveryId: response.body.id },
    });
    const listed = await deliveries();
    expect(listed[0]).toMatchObject({ id: response.body.id, outcome: "started", runId: run.id, run: { id: run.id, status: "completed" } });
  });

  it("refuses a bad signature, a stale timestamp and a replayed webhook-id, and starts nothing", async () => {
    const before = (await deliveries()).length;
    const runsBefore = (await call("GET", "/v1/runs?limit=100", { key: tenant.key })).body.data.length;
    const body = JSON.stringify({ order: { id: "B-1" }, customer: "Eve" });
    const other = `whsec_${Buffer.from("x".repeat(32)).toString("base64")}`;
    expectError(await send(body, signed(other, body)), 401, "webhook-signature-invalid");
    expectError(await send(body, {}), 401, "webhook-signature-invalid");
    const tampered = signed(webhook.secret, body);
    expectError(await send(body.replace("Eve", "Mallory"), tampered), 401, "webhook-signature-invalid");
    expectError(await send(body, signed(webhook.secret, body, undefined, new Date(Date.now() - 10 * 60 * 1000))), 401, "webhook-timestamp-out-of-window");
    expectError(await send(body, signed(webhook.secret, body, undefined, new Date(Date.now() + 10 * 60 * 1000))), 401, "webhook-timestamp-out-of-window");
    const headers = signed(webhook.secret, body);
    const first = await send(body, headers);
    expect(first.status).toBe(202);
    const replay = expectError(await send(body, headers), 409, "webhook-replayed");
    expect(replay.details).toMatchObject({ messageId: headers["webhook-id"] });
    expect((await deliveries()).length).toBe(before + 1);
    await waitForRun(tenant, first.body.runId);
    expect((await call("GET", "/v1/runs?limit=100", { key: tenant.key })).body.data.length).toBe(runsBefore + 1);
    expectError(await send(body, signed(webhook.secret, body), crypto.randomUUID()), 404, "not-found");
    expectError(await send(body, signed(webhook.secret, body), "not-a-uuid"), 400, "bad-input");
  });

  it("a paused webhook refuses deliveries; resumed, it accepts them; unregistered, its receiver is gone", async () => {
    expect((await call("POST", `/v1/webhooks/${webhook.id}/pause`, { key: tenant.key })).body.status).toBe("paused");
    const body = JSON.stringify({ order: { id: "C-3" }, customer: "Bob" });
    expectError(await send(body, signed(webhook.secret, body)), 409, "webhook-paused");
    expect((await call("POST", `/v1/webhooks/${webhook.id}/resume`, { key: tenant.key })).body.status).toBe("active");
    expect((await send(body, signed(webhook.secret, body))).status).toBe(202);
    expect((await call("POST", `/v1/webhooks/${webhook.id}/unregister`, { key: tenant.key })).body.status).toBe("unregistered");
    expectError(await send(body, signed(webhook.secret, body)), 404, "not-found");
  });

  it("checks the mapping at creation, and toolsAllowedUnattended needs a project admin", async () => {
    const bad = expectError(await call("POST", "/v1/webhooks", { key: tenant.key, body: { name: "bad", agent: { id: agent.id }, input: { userMessage: "{% if %}", parameters: { orderId: "order/id" } } } }), 400, "validation-failed");
    expect(bad.details.issues.map((issue: any) => issue.path).sort()).toEqual(["/input/parameters/orderId", "/input/userMessage"]);
    expectError(await call("POST", "/v1/webhooks", { key: memberKey, body: { name: "m", agent: { id: agent.id }, input: { userMessage: "x" }, toolsAllowedUnattended: ["test.send"] } }), 403, "permission-denied");
    expect((await call("POST", "/v1/webhooks", { key: memberKey, body: { name: "m", agent: { id: agent.id }, input: { userMessage: "x" } } })).status).toBe(201);
  });
});
