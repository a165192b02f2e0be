/**
 * Two replicas on one PostgreSQL database, started at the same moment on an empty database (one pair for the whole
 * file, tests/helpers/replicas.ts): both come up and the first tenant is created once; an approval asked on A reaches
 * B's inbox stream at once and a decision on B resumes the run; what is written through A is read through B on the
 * very next request.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, kindgi, tenantOn, toolManifest, type ApiResponse, type TestTenant } from "./helpers/api";
import { script, sleep } from "./helpers/kernel";
import { startReplicas, type Replicas } from "./helpers/replicas";
import { readSse, type SseFrame } from "./helpers/sse";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

/** An inbox stream read in the background (tests/helpers/sse.ts), with the first frame `match` accepts. */
async function openStream(url: string, key: string) {
  const reader = readSse(await fetch(url, { headers: { Authorization: `Bearer ${key}` } }));
  expect(reader.response.status).toBe(200);
  return {
    events: reader.frames,
    async next(match: (event: SseFrame) => boolean, timeoutMs = 10_000): Promise<SseFrame> {
      return (await reader.waitFor((frames) => frames.some(match), timeoutMs)).find(match)!;
    },
    async close() {
      reader.close();
      await reader.ended;
    },
  };
}

describe.skipIf(kindgi().backend !== "postgresql")("two replicas on one PostgreSQL database", () => {
  let replicas: Replicas;
  let receiver: RecordingServer;
  let tenant: TestTenant;
  const onA = (method: string, path: string, body?: unknown) => call(method, path, { key: tenant.key, body, baseUrl: replicas.a.baseUrl });
  const onB = (method: string, path: string, body?: unknown) => call(method, path, { key: tenant.key, body, baseUrl: replicas.b.baseUrl });

  beforeAll(async () => {
    [replicas, receiver] = await Promise.all([startReplicas(), startRecordingServer((request, response) => sendJson(response, 200, { ok: true }))]);
    tenant = await tenantOn(replicas.a.baseUrl, replicas.operatorToken, "replicas");
  }, 180_000);
  afterAll(async () => {
    await replicas?.stop();
    await receiver?.close();
  });

  it("both come up on an empty database started at the same moment, and the first tenant is created once", async () => {
    const outputs = [replicas.a.output(), replicas.b.output()];
    expect(outputs.filter((output) => output.includes("created the first tenant"))).toHaveLength(1);
    expect(outputs.filter((output) => output.includes("applied migrations"))).toHaveLength(1);
    for (const output of outputs) expect(output).not.toContain("exists already");
    const client = new pg.Client({ connectionString: replicas.databaseUrl });
    await client.connect();
    try {
      expect((await client.query(`SELECT count(*)::int AS n FROM "User" WHERE email = $1`, [replicas.adminEmail])).rows[0].n).toBe(1);
      expect((await client.query(`SELECT count(*)::int AS n FROM "ApiKey" k JOIN "User" u ON u.id = k."userId" WHERE u.email = $1`, [replicas.adminEmail])).rows[0].n).toBe(1);
    } finally {
      await client.end();
    }
    for (const server of [replicas.a, replicas.b]) {
      const whoami = await call("GET", "/v1/identity/whoami", { key: replicas.bootstrapKey, baseUrl: server.baseUrl });
      expect(whoami.status, whoami.text).toBe(200);
    }
  });

  it("an approval asked on A reaches B's inbox stream at once; B's decision resumes the run to completion", async () => {
    const tool = { ...toolManifest({ mutating: true, network: { kind: "allowlist", hosts: [receiver.hostPort] } }), spec: { kind: "http", method: "POST", urlTemplate: `${receiver.origin}/pay`, requestBody: { kind: "json-input" } }, projectId: tenant.projectId };
    expect((await onA("POST", "/v1/tools", tool)).status).toBe(201);
    const agent = { id: `replicas.agent-${Date.now()}`, version: "1.0.0", name: "Agent", instructions: "Act.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: tool.id, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId };
    expect((await onA("POST", "/v1/agents", agent)).status).toBe(201);
    const streamA = await openStream(`${replicas.a.baseUrl}/v1/approvals/stream`, tenant.key);
    const streamB = await openStream(`${replicas.b.baseUrl}/v1/approvals/stream`, tenant.key);
    try {
      const lags: number[] = [];
      const runs: ApiResponse[] = [];
      for (let round = 0; round < 3; round++) {
        const asked = performance.now();
        const started = await onA("POST", "/v1/runs", { agent: { id: agent.id }, input: { userMessage: script({ toolCalls: [{ name: tool.id, arguments: { word: `round-${round}` } }] }, { text: "paid" }) } });
        expect(started.body.status, started.text).toBe("suspended");
        const answered = performance.now();
        const mine = (event: SseFrame) => event.event === "approval.requested" && event.data.approval.runId === started.body.id;
        const heardOnB = await streamB.next(mine);
        const heardOnA = await streamA.next(mine);
        // B hears of it about when A (which wrote it) does, and well under a second after the run was started.
        lags.push(heardOnB.at - Math.min(heardOnA.at, answered));
        expect(heardOnB.at - asked).toBeLessThan(750);
        runs.push(started);
        await sleep(50);
      }
      expect(Math.max(...lags), `B's stream after A's: ${lags.map((lag) => lag.toFixed(1)).join(", ")} ms`).toBeLessThan(250);

      // Decided on B: the run resumes (on B's worker) and completes, the tool called once.
      const runId = runs[0].body.id;
      const approvalId = streamB.events.find((event) => event.data.approval.runId === runId)!.data.approval.id;
      const decided = await onB("POST", `/v1/approvals/${approvalId}/complete`, { decision: "approve" });
      expect(decided.status, decided.text).toBe(200);
      const decidedOnA = await streamA.next((event) => event.event === "approval.decided" && event.data.approval.id === approvalId);
      expect(decidedOnA.data.approval.status).toBe("approved");
      let run: ApiResponse;
      const deadline = Date.now() + 20_000;
      do {
        run = await onA("GET", `/v1/runs/${runId}`);
        if (run.body.status === "completed") break;
        await sleep(50);
      } while (Date.now() < deadline);
      expect(run.body).toMatchObject({ status: "completed", output: "paid" });
      expect(receiver.requests.filter((request) => request.url === "/pay").map((request) => JSON.parse(request.body))).toEqual([{ word: "round-0" }]);
      for (const other of runs.slice(1)) expect((await onB("POST", `/v1/runs/${other.body.id}/cancel`)).status).toBe(200);
    } finally {
      await Promise.all([streamA.close(), streamB.close()]);
    }
  });

  it("a tool registered on A is read on B by the very next request: the version, the list and a run's resolution", async () => {
    const tool = { ...toolManifest(), projectId: tenant.projectId };
    const agent = { id: `replicas.resolver-${Date.now()}`, version: "1.0.0", name: "Agent", instructions: "Act.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: tool.id, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId };
    const resolvedOnB = async () => {
      const dry = await onB("POST", "/v1/runs", { agent: { id: agent.id }, input: { userMessage: script({ text: "ok" }) }, options: { dryRun: true } });
      expect(dry.status, dry.text).toBe(200);
      return dry.body.resolvedTools;
    };
    const listedOnB = async () => ((await onB("GET", "/v1/tools?limit=100")).body.data as { toolId: string; latestVersion: string }[]).find((item) => item.toolId === tool.id)?.latestVersion ?? null;

    // B has read (and may keep) the state before: no such tool, a run resolving nothing.
    expect((await onB("GET", `/v1/tools/${tool.id}/versions/1.0.0`)).status).toBe(404);
    expect((await onA("POST", "/v1/agents", agent)).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      expect(await listedOnB()).toBeNull();
      expect(await resolvedOnB()).toEqual([]);
    }

    expect((await onA("POST", "/v1/tools", tool)).status).toBe(201);
    const version = await onB("GET", `/v1/tools/${tool.id}/versions/1.0.0`);
    expect(version.status, version.text).toBe(200);
    expect(await listedOnB()).toBe("1.0.0");
    expect(await resolvedOnB()).toEqual([{ id: tool.id, range: "^1.0.0", version: "1.0.0" }]);

    // A new version: the next run on B resolves it.
    expect((await onA("POST", "/v1/tools", { ...tool, version: "1.1.0" })).status).toBe(201);
    const run = await onB("POST", "/v1/runs", { agent: { id: agent.id }, input: { userMessage: script({ text: "ok" }) }, options: { wait: true } });
    expect(run.status, run.text).toBe(201);
    expect(run.body.resolvedTools).toEqual([{ id: tool.id, range: "^1.0.0", version: "1.1.0" }]);
    expect(await listedOnB()).toBe("1.1.0");

    // A key minted on A is accepted by B, and once revoked on A refused by B, each on the next request.
    const minted = await onA("POST", "/v1/tokens", { name: "replica key" });
    expect(minted.status).toBe(201);
    expect((await call("GET", "/v1/identity/whoami", { key: minted.body.key, baseUrl: replicas.b.baseUrl })).status).toBe(200);
    expect((await onA("POST", `/v1/tokens/${minted.body.id}/revoke`)).status).toBe(200);
    expect((await call("GET", "/v1/identity/whoami", { key: minted.body.key, baseUrl: replicas.b.baseUrl })).status).toBe(401);
  });
});
