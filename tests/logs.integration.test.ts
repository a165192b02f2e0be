/**
 * The server's log (lib/log.ts) as `npm start` writes it: one JSON line per event on stdout — a run started by a
 * request logs its end with the request's id (the caller's X-Request-Id), the tenant and the run — Next.js's own lines
 * turned into log lines, the first tenant's credentials on stderr only; with KINDGI_LOG_FORMAT=pretty, lines for people.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, tenantOn, type TestTenant } from "./helpers/api";
import { startOwnServer, type OwnServer } from "./helpers/server";

let json: OwnServer;
let pretty: OwnServer;

beforeAll(async () => {
  // Each run execution's end is a debug line: both servers log from debug on.
  [json, pretty] = await Promise.all([startOwnServer({ KINDGI_LOG_LEVEL: "debug" }), startOwnServer({ KINDGI_LOG_FORMAT: "pretty", KINDGI_LOG_LEVEL: "debug" })]);
}, 240_000);

afterAll(async () => {
  await Promise.all([json?.stop(), pretty?.stop()]);
});

/** A run of a scripted agent, started with `requestId` as X-Request-Id on `server`'s own tenant. */
async function runOn(server: OwnServer, requestId: string): Promise<{ tenant: TestTenant; runId: string }> {
  const baseUrl = server.server.baseUrl;
  const tenant = await tenantOn(baseUrl, server.operatorToken, "logs");
  const agentId = `test.logs-${randomBytes(4).toString("hex")}`;
  const agent = { id: agentId, version: "1.0.0", name: "Logs", instructions: "Answer.", capabilities: [{ kind: "llm-inference" }], tools: [], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId };
  expect((await call("POST", "/v1/agents", { baseUrl, key: tenant.key, body: agent })).status).toBe(201);
  const run = await call("POST", "/v1/runs", { baseUrl, key: tenant.key, headers: { "X-Request-Id": requestId }, body: { agent: { id: agentId }, input: { userMessage: JSON.stringify({ script: [{ text: "done" }] }) } } });
  expect(run.status, run.text).toBe(201);
  expect(run.headers.get("x-request-id")).toBe(requestId);
  return { tenant, runId: run.body.id };
}

const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

describe("the log in JSON (the default)", () => {
  it("is one JSON line per event on stdout, with the request, tenant and run ids where known", async () => {
    const requestId = `logs-test.${randomBytes(6).toString("hex")}`;
    const { tenant, runId } = await runOn(json, requestId);
    await expect.poll(() => json.server.stdout(), { timeout: 10_000 }).toContain(requestId);

    const records = lines(json.server.stdout()).map((line) => {
      const record = JSON.parse(line);
      expect(record, line).toMatchObject({ level: expect.stringMatching(/^(debug|info|warn|error)$/), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), msg: expect.any(String) });
      expect(new Date(record.time).toISOString()).toBe(record.time);
      return record as Record<string, unknown>;
    });
    const ofRequest = records.filter((record) => record.requestId === requestId);
    expect(ofRequest).toContainEqual(expect.objectContaining({ level: "debug", msg: "a run's execution ended", requestId, tenantId: tenant.tenantId, runId, outcome: "settled" }));
    expect(Object.keys(ofRequest[0]).slice(0, 6)).toEqual(["level", "time", "msg", "requestId", "tenantId", "runId"]);
    // Next.js's banner comes through as log lines of its own.
    expect(records.some((record) => record.source === "next")).toBe(true);
    // The first tenant is logged without its credentials: those are printed once, on stderr.
    expect(records).toContainEqual(expect.objectContaining({ level: "info", msg: expect.stringContaining("created the first tenant") }));
    expect(json.server.output()).toMatch(/API key:\s+kgi_\w+/);
    expect(json.server.stdout()).not.toMatch(/kgi_|API key:|admin password:/);
    expect(json.server.stdout()).not.toContain(tenant.key);
  });

  it("takes a sane X-Request-Id of the caller's, and makes a new one otherwise", async () => {
    const { baseUrl } = json.server;
    for (const given of ["has spaces in it", "x".repeat(129), "<script>"]) {
      const response = await call("GET", "/v1/identity/whoami", { baseUrl, headers: { "X-Request-Id": given } });
      expect(response.status).toBe(401);
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.body.error.requestId).toBe(response.headers.get("x-request-id"));
    }
    const sane = `${"a".repeat(100)}:1.2_3-4`;
    expect((await call("GET", "/v1/identity/whoami", { baseUrl, headers: { "X-Request-Id": sane } })).headers.get("x-request-id")).toBe(sane);
  });
});

describe("KINDGI_LOG_FORMAT=pretty", () => {
  it("writes a line for people, not JSON", async () => {
    const requestId = `logs-pretty.${randomBytes(6).toString("hex")}`;
    const { tenant, runId } = await runOn(pretty, requestId);
    await expect.poll(() => pretty.server.stdout(), { timeout: 10_000 }).toContain(requestId);
    const line = lines(pretty.server.stdout()).find((candidate) => candidate.includes(requestId))!;
    expect(() => JSON.parse(line)).toThrow();
    expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} DEBUG a run's execution ended requestId=${requestId.replace(".", "\\.")} tenantId=${tenant.tenantId} runId=${runId} outcome=settled ms=\\d+$`));
    expect(pretty.server.stdout()).not.toContain(tenant.key);
  });
});
