/**
 * GET /metrics and GET /health/ready. The shared server has no KINDGI_METRICS_TOKEN, so /metrics does not exist there;
 * a server of this file's own has one: it answers only that bearer token, in the Prometheus text format, and its
 * counters, histograms and gauges move with a turn that calls an HTTP tool and a turn that asks for an approval.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, kindgi, tenantOn, type TestTenant } from "./helpers/api";
import { httpTool, script, sleep, unique } from "./helpers/kernel";
import { startOwnServer, type OwnServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

const TOKEN = `metrics-${Math.random().toString(36).slice(2)}`;
let own: OwnServer;
let receiver: RecordingServer;
let tenant: TestTenant;

beforeAll(async () => {
  receiver = await startRecordingServer((request, response) => sendJson(response, 200, { ok: true }));
  own = await startOwnServer({ KINDGI_METRICS_TOKEN: TOKEN });
  tenant = await tenantOn(own.server.baseUrl, own.operatorToken, "metrics");
}, 180_000);

afterAll(async () => {
  await own?.stop();
  await receiver?.close();
});

const api = (method: string, path: string, body?: unknown) => call(method, path, { key: tenant.key, body, baseUrl: own.server.baseUrl });

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The samples of a Prometheus text exposition (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

async function scrape(): Promise<{ value: (name: string, labels?: Record<string, string>) => number; has: (name: string) => boolean; text: string }> {
  const response = await fetch(`${own.server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const samples = parse(text);
  return {
    text,
    has: (name) => samples.some((sample) => sample.name === name),
    // The sum over the samples whose labels include `labels` (0 when none).
    value: (name, labels = {}) => samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)).reduce((sum, sample) => sum + sample.value, 0),
  };
}

async function register(kind: "tools" | "agents", body: Record<string, unknown>) {
  const response = await api("POST", `/v1/${kind}`, { projectId: tenant.projectId, ...body });
  expect(response.status, response.text).toBe(201);
}

async function agentWith(toolId: string): Promise<string> {
  const id = unique("metrics.agent");
  await register("agents", { id, version: "1.0.0", name: "Metrics", instructions: "Call.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: toolId, version: "1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" });
  return id;
}

async function waitFor(runId: string, status: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await api("GET", `/v1/runs/${runId}`);
    if (response.body?.status === status) return response.body;
    if (Date.now() > deadline) throw new Error(`run ${runId}: ${response.text}`);
    await sleep(50);
  }
}

describe("GET /metrics", () => {
  it("does not exist without KINDGI_METRICS_TOKEN (the shared server has none)", async () => {
    expectError(await call("GET", "/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } }), 404, "not-found");
    expect(kindgi().baseUrl).not.toBe(own.server.baseUrl);
  });

  it("answers only the token, in the Prometheus text format", async () => {
    expectError(await call("GET", "/metrics", { baseUrl: own.server.baseUrl }), 401, "auth-missing");
    expectError(await call("GET", "/metrics", { baseUrl: own.server.baseUrl, headers: { Authorization: `Bearer ${TOKEN}x` } }), 401, "auth-invalid");
    expectError(await call("GET", "/metrics", { baseUrl: own.server.baseUrl, key: tenant.key }), 401, "auth-invalid");
    const response = await fetch(`${own.server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    for (const name of ["kindgi_runs_started_total", "kindgi_runs_completed_total", "kindgi_runs_failed_total", "kindgi_turn_duration_seconds", "kindgi_model_call_duration_seconds", "kindgi_tool_call_duration_seconds", "kindgi_approvals_pending", "kindgi_approval_oldest_pending_age_seconds", "kindgi_runs_suspended", "kindgi_runs_leased", "kindgi_event_bus_listening", "kindgi_event_bus_last_heard_age_seconds", "kindgi_db_pool_connections"])
      expect(text).toContain(`# TYPE ${name} `);
    const metrics = await scrape();
    expect(metrics.value("kindgi_event_bus_listening")).toBe(1);
    expect(metrics.value("kindgi_approvals_pending")).toBe(0);
    expect(metrics.text).toMatch(/kindgi_runs_leased\{worker="self"\} \d/);
    expect(metrics.text).toMatch(/kindgi_runs_leased\{worker="all"\} \d/);
    // The pool gauges are PostgreSQL's; PGlite has no pool.
    if (kindgi().backend === "postgresql") expect(metrics.value("kindgi_db_pool_connections", { pool: "main", state: "idle" }) + metrics.value("kindgi_db_pool_connections", { pool: "main", state: "in_use" })).toBeGreaterThan(0);
    else expect(metrics.has("kindgi_db_pool_connections")).toBe(false);
  });

  it("counts a turn with an HTTP tool call, and shows an approval pending until it is decided", async () => {
    const before = await scrape();
    const readTool = httpTool(receiver, { id: unique("metrics.read") });
    await register("tools", readTool);
    const reader = await agentWith(readTool.id);
    const read = await api("POST", "/v1/runs", { agent: { id: reader }, input: { userMessage: script({ toolCalls: [{ name: readTool.id, arguments: { word: "hi" } }] }, { text: "read" }) } });
    expect(read.status, read.text).toBe(201);
    expect(read.body.status).toBe("completed");

    const afterRead = await scrape();
    expect(afterRead.value("kindgi_runs_started_total", { origin: "api-key" }) - before.value("kindgi_runs_started_total", { origin: "api-key" })).toBe(1);
    expect(afterRead.value("kindgi_runs_completed_total", { origin: "api-key" }) - before.value("kindgi_runs_completed_total", { origin: "api-key" })).toBe(1);
    expect(afterRead.value("kindgi_runs_failed_total")).toBe(before.value("kindgi_runs_failed_total"));
    expect(afterRead.value("kindgi_tool_call_duration_seconds_count", { transport: "http", outcome: "ok" }) - before.value("kindgi_tool_call_duration_seconds_count", { transport: "http", outcome: "ok" })).toBe(1);
    expect(afterRead.value("kindgi_model_call_duration_seconds_count", { provider: "scripted", outcome: "ok" }) - before.value("kindgi_model_call_duration_seconds_count", { provider: "scripted", outcome: "ok" })).toBe(2);
    expect(afterRead.value("kindgi_turn_duration_seconds_count", { outcome: "settled" }) - before.value("kindgi_turn_duration_seconds_count", { outcome: "settled" })).toBeGreaterThanOrEqual(1);

    const writeTool = httpTool(receiver, { id: unique("metrics.write"), mutating: true });
    await register("tools", writeTool);
    const writer = await agentWith(writeTool.id);
    const write = await api("POST", "/v1/runs", { agent: { id: writer }, input: { userMessage: script({ toolCalls: [{ name: writeTool.id, arguments: { word: "pay" } }] }, { text: "paid" }) } });
    expect(write.status, write.text).toBe(201);
    expect(write.body.status).toBe("suspended");
    const waiting = await scrape();
    expect(waiting.value("kindgi_approvals_pending")).toBe(1);
    expect(waiting.value("kindgi_runs_suspended")).toBe(1);
    expect(waiting.value("kindgi_approval_oldest_pending_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(waiting.value("kindgi_approval_oldest_pending_age_seconds")).toBeLessThan(60);

    const [approval] = (await api("GET", `/v1/approvals?runId=${write.body.id}&status=pending`)).body.data;
    const decided = await api("POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve" });
    expect(decided.status, decided.text).toBe(200);
    await waitFor(write.body.id, "completed");
    const after = await scrape();
    expect(after.value("kindgi_approvals_pending")).toBe(0);
    expect(after.value("kindgi_approval_oldest_pending_age_seconds")).toBe(0);
    expect(after.value("kindgi_runs_suspended")).toBe(0);
    expect(after.value("kindgi_runs_started_total", { origin: "api-key" }) - before.value("kindgi_runs_started_total", { origin: "api-key" })).toBe(2);
    expect(after.value("kindgi_runs_completed_total", { origin: "api-key" }) - before.value("kindgi_runs_completed_total", { origin: "api-key" })).toBe(2);
    expect(after.value("kindgi_tool_call_duration_seconds_count", { transport: "http" }) - before.value("kindgi_tool_call_duration_seconds_count", { transport: "http" })).toBe(2);
    expect(after.value("kindgi_runs_leased", { worker: "self" })).toBe(0);
  });
});

describe("GET /health/ready", () => {
  it("is 200 with every check ok, on the shared server and on one of its own, uncached and public", async () => {
    for (const baseUrl of [kindgi().baseUrl, own.server.baseUrl]) {
      const response = await call("GET", "/health/ready", { baseUrl });
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.body).toEqual({ status: "ready", checks: { database: { ok: true }, migrations: { ok: true }, eventBus: { ok: true } } });
    }
  });
});
