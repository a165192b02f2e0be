/**
 * Suspended runs survive the server being killed: 100 runs suspended on approvals and 20 on wait tokens, the server
 * SIGKILLed and started again on the same database, then every approval decided and every token answered — all 120
 * runs finish, and a recording server (deduplicating by Idempotency-Key, as a payment API would) sees each side
 * effect exactly once: each approved charge, and each paused call's hand-over of its link.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgresDatabase, newOperatorToken, root, startServer, waitForProcessGroupExit, type RunningServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { sleep } from "./helpers/kernel";

const APPROVAL_RUNS = 100;
const WAIT_RUNS = 20;

let receiver: RecordingServer;
/** Requests per Idempotency-Key and path. */
const received = new Map<string, number>();
const handed = new Map<string, { waitId: string; token: string }>();
let database: { url: string; drop: () => Promise<void> } | null = null;
let dataDir: string | undefined;
let folder: string;
let server: RunningServer | null = null;

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-restart-"));
  fs.cpSync(path.join(root, "tests/fixtures/handlers"), folder, { recursive: true });
  receiver = await startRecordingServer((request, response) => {
    const key = `${request.url} ${String(request.headers["idempotency-key"] ?? JSON.parse(request.body).idempotencyKey ?? "")}`;
    received.set(key, (received.get(key) ?? 0) + 1);
    if (request.url === "/notify") {
      const body = JSON.parse(request.body);
      handed.set(body.ref, { waitId: body.waitId, token: body.token });
    }
    sendJson(response, 200, { charged: true });
  });
  if (process.env.KINDGI_TEST_DATABASE_URL) database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL);
});

afterAll(async () => {
  await server?.stop();
  await receiver.close();
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

async function api(base: string, key: string, method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${base}${urlPath}`, { method, headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

describe("SIGKILL with suspended runs", () => {
  it(`${APPROVAL_RUNS} runs waiting on approvals and ${WAIT_RUNS} on wait tokens all finish after a kill and a restart, each side effect once`, async () => {
    const operatorToken = newOperatorToken();
    const env = { NODE_ENV: "test", DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), KINDGI_RUN_LEASE_MS: "2000", KINDGI_RUN_POLL_MS: "200", KINDGI_DEV_PROVIDERS: "1" };
    server = await startServer({ env });
    dataDir = server.dataDir;
    let base = server.baseUrl;
    const tenant = (await api(base, operatorToken, "POST", "/v1/tenants", { name: "restart" })).body;
    const key: string = tenant.apiKey.key;
    const projectId = tenant.project.id;
    const register = async (kind: string, body: Record<string, unknown>) => expect((await api(base, key, "POST", `/v1/${kind}`, { projectId, ...body })).status).toBe(201);
    await register("tools", { id: "test.charge", description: "Charges.", version: "1.0.0", input: { type: "object", properties: { word: { type: "string" } }, required: ["word"] }, output: { type: "object" }, mutating: true, network: { kind: "allowlist", hosts: [receiver.hostPort] }, spec: { kind: "http", method: "POST", urlTemplate: `${receiver.origin}/charge`, requestBody: { kind: "json-input" } } });
    await register("tools", {
      id: "test.ask",
      description: "Asks another system.",
      version: "1.0.0",
      input: { type: "object", properties: { notify: { type: "string" }, ref: { type: "string" } }, required: ["notify", "ref"] },
      output: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      mutating: false,
      pauses: true,
      network: { kind: "allowlist", hosts: [receiver.hostPort] },
      codeArtifactRef: { kind: "filesystem", modulePath: path.join(folder, "pauser.mjs") },
    });
    await register("agents", { id: "test.worker", version: "1.0.0", name: "Worker", instructions: "Work.", capabilities: [{}], tools: [{ id: "test.charge", version: "1.0.0" }, { id: "test.ask", version: "1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" });

    const approvalRuns: string[] = [];
    const waitRuns: string[] = [];
    await inBatches([...Array(APPROVAL_RUNS).keys()], 10, async (i) => {
      const started = await api(base, key, "POST", "/v1/runs", { agent: { id: "test.worker" }, input: { userMessage: JSON.stringify({ script: [{ toolCalls: [{ name: "test.charge", arguments: { word: `a${i}` } }] }, { text: `charged ${i}` }] }) } });
      expect(started.body.status).toBe("suspended");
      approvalRuns.push(started.body.id);
    });
    await inBatches([...Array(WAIT_RUNS).keys()], 10, async (i) => {
      const started = await api(base, key, "POST", "/v1/runs", { agent: { id: "test.worker" }, input: { userMessage: JSON.stringify({ script: [{ toolCalls: [{ name: "test.ask", arguments: { notify: `${receiver.origin}/notify`, ref: `w${i}` } }] }, { text: `answered ${i}` }] }) } });
      expect(started.body.status).toBe("suspended");
      waitRuns.push(started.body.id);
    });
    expect(handed.size).toBe(WAIT_RUNS);
    expect([...received.keys()].filter((k) => k.startsWith("/charge"))).toEqual([]);

    const pgid = server.process.pid!;
    process.kill(-pgid, "SIGKILL");
    await waitForProcessGroupExit(pgid);
    server = await startServer({ env, dataDir });
    base = server.baseUrl;

    const pending: any[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await api(base, key, "GET", `/v1/approvals?status=pending&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
      pending.push(...page.body.data);
      if (!page.body.hasMore) break;
      cursor = page.body.nextCursor;
    }
    expect(pending.map((approval) => approval.runId).sort()).toEqual([...approvalRuns].sort());
    await inBatches(pending, 10, async (approval) => {
      const decided = await api(base, key, "POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve" });
      expect(decided.status, decided.text).toBe(200);
    });
    await inBatches([...handed.entries()], 10, async ([ref, wait]) => {
      const completed = await api(base, "", "POST", `/v1/waits/${wait.waitId}/complete`, { token: wait.token, output: { answer: ref } });
      expect(completed.status, completed.text).toBe(200);
    });

    const all = [...approvalRuns, ...waitRuns];
    const finished = new Map<string, any>();
    for (const deadline = Date.now() + 120_000; finished.size < all.length && Date.now() < deadline; ) {
      for (const id of all) {
        if (finished.has(id)) continue;
        const run = await api(base, key, "GET", `/v1/runs/${id}`);
        if (["completed", "failed", "cancelled"].includes(run.body?.status)) finished.set(id, run.body);
      }
      await sleep(250);
    }
    expect(finished.size).toBe(all.length);
    approvalRuns.forEach((id) => expect(finished.get(id)).toMatchObject({ status: "completed", usage: { toolCalls: 1 } }));
    waitRuns.forEach((id) => expect(finished.get(id)).toMatchObject({ status: "completed", usage: { toolCalls: 1 } }));
    // Each side effect once: one charge per approval run, one hand-over per paused run, under their own keys.
    const charges = [...received].filter(([k]) => k.startsWith("/charge "));
    const notifies = [...received].filter(([k]) => k.startsWith("/notify "));
    expect(charges).toHaveLength(APPROVAL_RUNS);
    expect(notifies).toHaveLength(WAIT_RUNS);
    for (const [k, count] of [...charges, ...notifies]) expect(count, k).toBe(1);
    for (const id of waitRuns.slice(0, 3)) {
      const events = (await api(base, key, "GET", `/v1/runs/${id}/journal?limit=1000`)).body.data as any[];
      expect(events.find((event) => event.type === "tool-call-completed").data).toMatchObject({ ok: true, output: { answer: expect.stringMatching(/^w\d+$/) } });
    }
  }, 400_000);
});
