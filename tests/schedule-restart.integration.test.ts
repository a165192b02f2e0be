/**
 * Schedules across server restarts and replicas, on servers of this file's own: ticks missed while no server ran fire
 * once when a server starts (not once per missed tick), and two servers on one PostgreSQL database never fire the same
 * tick twice (the second part needs PostgreSQL: the embedded database has one process by design).
 */
import fs from "node:fs";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgresDatabase, newOperatorToken, startServer, type RunningServer } from "./helpers/server";
import { sleep } from "./helpers/kernel";

const usePostgres = Boolean(process.env.KINDGI_TEST_DATABASE_URL);
let database: { url: string; drop: () => Promise<void> } | null = null;
const servers: RunningServer[] = [];
const dataDirs: string[] = [];

beforeAll(async () => {
  if (usePostgres) database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL!);
});

afterAll(async () => {
  for (const server of servers) await server.stop();
  await database?.drop();
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const operatorToken = newOperatorToken();
const env = () => ({ DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_SECRETS_KEY: secretsKey, KINDGI_DEV_PROVIDERS: "1" });
const secretsKey = randomBytes(32).toString("base64");

async function api(base: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

async function setUp(base: string, name: string) {
  const tenant = await fetch(`${base}/v1/tenants`, { method: "POST", headers: { Authorization: `Bearer ${operatorToken}`, "Content-Type": "application/json" }, body: JSON.stringify({ name }) }).then((r) => r.json());
  const key: string = tenant.apiKey.key;
  const agent = { id: `test.ticker-${Date.now().toString(36)}`, version: "1.0.0", name: "Ticker", instructions: "Tick.", capabilities: [{}], tools: [], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.project.id };
  expect((await api(base, key, "POST", "/v1/agents", agent)).status).toBe(201);
  const schedule = await api(base, key, "POST", "/v1/schedules", { name: "every second", cron: "* * * * * *", timezone: "UTC", agent: { id: agent.id }, input: { userMessage: JSON.stringify({ script: [{ text: "tick" }] }) } });
  expect(schedule.status).toBe(201);
  return { key, scheduleId: schedule.body.id as string };
}

async function allFires(base: string, key: string, scheduleId: string): Promise<any[]> {
  const fires: any[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await api(base, key, "GET", `/v1/schedules/${scheduleId}/fires?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.status).toBe(200);
    fires.push(...page.body.data);
    if (!page.body.hasMore) return fires;
    cursor = page.body.nextCursor;
  }
}

describe("schedules and restarts", () => {
  it("ticks missed while the server was down fire once when it starts, not once each", async () => {
    let server = await startServer({ env: env() });
    servers.push(server);
    if (server.dataDir) dataDirs.push(server.dataDir);
    const { key, scheduleId } = await setUp(server.baseUrl, "restart");
    for (const until = Date.now() + 15_000; (await allFires(server.baseUrl, key, scheduleId)).length < 2 && Date.now() < until; ) await sleep(200);
    await server.stop();
    const stoppedAt = Date.now();
    await sleep(4000);
    const restartedAt = Date.now();
    server = await startServer({ env: env(), dataDir: server.dataDir });
    servers.push(server);
    await sleep(2500);
    expect((await api(server.baseUrl, key, "POST", `/v1/schedules/${scheduleId}/pause`)).status).toBe(200);
    await sleep(1000);
    const fires = await allFires(server.baseUrl, key, scheduleId);

    const afterRestart = fires.filter((fire) => Date.parse(fire.firedAt) >= restartedAt);
    const late = afterRestart.filter((fire) => Date.parse(fire.tick) < restartedAt);
    // At least three ticks passed while no server ran; exactly one of them fired, marked missed.
    expect(late).toHaveLength(1);
    expect(late[0].missed).toBe(true);
    expect(restartedAt - Date.parse(late[0].tick)).toBeGreaterThanOrEqual(3000);
    expect(fires.filter((fire) => Date.parse(fire.tick) > stoppedAt && Date.parse(fire.tick) < restartedAt)).toHaveLength(Date.parse(late[0].tick) > stoppedAt ? 1 : 0);
    // After it, the schedule fires on time again, each tick once.
    const onTime = afterRestart.filter((fire) => Date.parse(fire.tick) >= restartedAt);
    expect(onTime.length).toBeGreaterThanOrEqual(1);
    expect(onTime.map((fire) => fire.outcome).filter((outcome) => outcome !== "started")).toEqual([]);
    expect(new Set(fires.map((fire) => fire.tick)).size).toBe(fires.length);
    const run = await api(server.baseUrl, key, "GET", `/v1/runs/${late[0].runId}`);
    expect(run.body).toMatchObject({ origin: { kind: "schedule", scheduleId, fireId: late[0].id }, attended: false });
    await server.stop();
  }, 180_000);

  if (!usePostgres) {
    // The embedded database is one process's: a second server on the same data folder does not start, so no two
    // servers can fire one schedule's ticks.
    it("a second server on the same embedded data folder does not start, and the first keeps firing", async () => {
      const first = await startServer({ env: env() });
      servers.push(first);
      if (first.dataDir) dataDirs.push(first.dataDir);
      const { key, scheduleId } = await setUp(first.baseUrl, "one process");
      await expect(startServer({ env: env(), dataDir: first.dataDir })).rejects.toThrow(/is in use by another Kindgi process/);
      const before = (await allFires(first.baseUrl, key, scheduleId)).length;
      for (const until = Date.now() + 15_000; (await allFires(first.baseUrl, key, scheduleId)).length < before + 2 && Date.now() < until; ) await sleep(200);
      expect((await api(first.baseUrl, key, "POST", `/v1/schedules/${scheduleId}/pause`)).status).toBe(200);
      const fires = await allFires(first.baseUrl, key, scheduleId);
      expect(fires.length).toBeGreaterThanOrEqual(before + 2);
      expect(new Set(fires.map((fire) => fire.tick)).size).toBe(fires.length);
    }, 180_000);
    return;
  }

  it("two servers on one PostgreSQL database never fire the same tick twice", async () => {
    const first = await startServer({ env: env() });
    servers.push(first);
    const second = await startServer({ env: env() });
    servers.push(second);
    const { key, scheduleId } = await setUp(first.baseUrl, "replicas");
    await sleep(6000);
    expect((await api(second.baseUrl, key, "POST", `/v1/schedules/${scheduleId}/pause`)).status).toBe(200);
    await sleep(1000);
    const fires = await allFires(second.baseUrl, key, scheduleId);
    expect(fires.length).toBeGreaterThanOrEqual(4);
    expect(new Set(fires.map((fire) => fire.tick)).size).toBe(fires.length);
    expect(fires.every((fire) => fire.outcome === "started")).toBe(true);
    // Each fire started exactly one run, and no run was started by a fire that is not listed.
    const runs = await api(first.baseUrl, key, "GET", "/v1/runs?limit=100");
    const scheduled = runs.body.data.filter((run: any) => run.origin?.kind === "schedule" && run.origin.scheduleId === scheduleId);
    expect(scheduled.map((run: any) => run.origin.fireId).sort()).toEqual(fires.map((fire) => fire.id).sort());
    expect(new Set(scheduled.map((run: any) => run.id)).size).toBe(fires.length);
  }, 180_000);
});
