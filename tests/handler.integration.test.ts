/**
 * Pack handlers (`codeArtifactRef.kind = "filesystem"`) through agent runs over HTTP, on a server of their own (so
 * its log output can be searched): the three sandbox levels, the context (secret, env, config, idempotency key,
 * log lines journaled as tool-logged), a memory hog, an endless loop, a forbidden write and a child process under
 * `strict` each failing their call with a clear reason while the same server completes other runs, a missing module
 * refused at registration, and a handler's secret nowhere in what the server produced. OCI artifacts:
 * tests/oci-artifacts.integration.test.ts.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, toolManifest } from "./helpers/api";
import { script } from "./helpers/kernel";
import { freshPostgresDatabase, newOperatorToken, root, startServer, type RunningServer } from "./helpers/server";

const operatorToken = newOperatorToken();
const canary = `handler-canary-${randomBytes(12).toString("hex")}`;
let server: RunningServer;
let database: { url: string; drop: () => Promise<void> } | null = null;
let folder: string;
let tenant: { key: string; projectId: string };
const produced: string[] = [];

beforeAll(async () => {
  // The fixtures, copied to a temporary folder: modulePath is absolute and the strict sandbox reads only that folder.
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-handlers-"));
  fs.cpSync(path.join(root, "tests/fixtures/handlers"), folder, { recursive: true });
  if (process.env.KINDGI_TEST_DATABASE_URL) database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL);
  server = await startServer({ env: { NODE_ENV: "test", DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_DEV_PROVIDERS: "1", KINDGI_SECRETS_KEY: randomBytes(32).toString("base64") } });
  const created = await call("POST", "/v1/tenants", { key: operatorToken, body: { name: "handlers" }, baseUrl: server.baseUrl });
  expect(created.status).toBe(201);
  tenant = { key: created.body.apiKey.key, projectId: created.body.project.id };
  expect((await api("POST", "/v1/secrets", { name: "acme-token", value: canary })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  if (server?.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

async function api(method: string, urlPath: string, body?: unknown) {
  const response = await call(method, urlPath, { key: tenant.key, body, baseUrl: server.baseUrl });
  produced.push(response.text);
  return response;
}

let counter = 0;
async function handlerTool(file: string, overrides: Record<string, unknown> = {}) {
  counter += 1;
  const manifest = toolManifest({
    id: `acme.handler-${counter}-${Date.now().toString(36)}`,
    input: { type: "object" },
    output: { type: "object" },
    spec: undefined,
    effects: undefined,
    codeArtifactRef: { kind: "filesystem", modulePath: path.join(folder, file) },
    needsSpec: { secrets: { API_TOKEN: { name: "acme-token" } }, env: { REGION: { value: "eu-west" } }, config: { greeting: { default: "hello" } } },
    ...overrides,
  });
  const created = await api("POST", "/v1/tools", { ...manifest, projectId: tenant.projectId });
  expect(created.status, created.text).toBe(201);
  const unsandboxed = (overrides.sandbox ?? "none") === "none";
  expect(created.body.warnings).toEqual(unsandboxed ? [{ path: "/sandbox", message: expect.stringContaining("its network policy covers only what it sends through context.fetch") }] : []);
  return manifest.id as string;
}

async function agentWith(toolId: string) {
  counter += 1;
  const agent = { id: `acme.agent-${counter}-${Date.now().toString(36)}`, version: "1.0.0", name: "Handler agent", instructions: "Use the tool.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: toolId, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" };
  const created = await api("POST", "/v1/agents", { ...agent, projectId: tenant.projectId });
  expect(created.status, created.text).toBe(201);
  return { id: agent.id };
}

async function run(toolId: string, args: Record<string, unknown>) {
  const agent = await agentWith(toolId);
  const response = await api("POST", "/v1/runs", { agent, input: { userMessage: script({ toolCalls: [{ name: toolId, arguments: args }] }, { text: "done" }) } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function journalOf(runId: string): Promise<any[]> {
  const response = await api("GET", `/v1/runs/${runId}/journal?limit=1000`);
  expect(response.status).toBe(200);
  return response.body.data;
}

const completedCall = (events: any[]) => events.find((event) => event.type === "tool-call-completed").data;

describe.each(["none", "context-isolated", "strict"] as const)("a handler with sandbox %s", (sandbox) => {
  it("runs with its context; its log lines are journaled, redacted, before its result", async () => {
    const toolId = await handlerTool("echo.mjs", { sandbox, limits: { memMB: 64, cpuMs: 5000 } });
    const body = await run(toolId, { text: "hi" });
    expect(body.status).toBe("completed");
    const events = await journalOf(body.id);
    const started = events.find((event) => event.type === "tool-call-started").data;
    expect(completedCall(events)).toMatchObject({ ok: true, output: { echo: "hi", region: "eu-west", greeting: "hello", key: started.idempotencyKey, tokenLength: canary.length, leaked: "token=[redacted]" } });
    const types = events.map((event) => event.type);
    expect(types.slice(types.indexOf("tool-call-started"), types.indexOf("tool-call-completed") + 1)).toEqual(["tool-call-started", "tool-logged", "tool-logged", "tool-call-completed"]);
    expect(events.filter((event) => event.type === "tool-logged").map((event) => [event.data.level, event.data.message])).toEqual([
      ["info", 'calling with token [redacted] {"region":"eu-west"}'],
      ["warn", "second line"],
    ]);
  }, 60_000);
});

describe("strict sandbox failures", () => {
  it("a memory hog, an endless loop, a forbidden write and a child process fail their calls while other runs complete", async () => {
    const hog = await handlerTool("hog.mjs", { sandbox: "strict", limits: { memMB: 48, cpuMs: 30_000 } });
    const spin = await handlerTool("spin.mjs", { sandbox: "strict", limits: { memMB: 64, cpuMs: 500 } });
    const escape = await handlerTool("escape.mjs", { sandbox: "strict", limits: { memMB: 64, cpuMs: 5000 } });
    const echo = await handlerTool("echo.mjs", { sandbox: "strict", limits: { memMB: 64, cpuMs: 5000 } });
    const target = path.join(os.tmpdir(), `kindgi-escaped-${process.pid}-${Date.now()}.txt`);
    const failing = [run(hog, {}), run(spin, {}), run(escape, { action: "write", path: target }), run(escape, { action: "spawn" })];
    // Meanwhile, on the same server, ordinary runs complete.
    const others = [];
    for (let index = 0; index < 3; index += 1) others.push(await run(echo, { text: `other ${index}` }));
    for (const other of others) expect(other.status).toBe("completed");
    const [hogRun, spinRun, writeRun, spawnRun] = await Promise.all(failing);
    const reasons = [hogRun, spinRun, writeRun, spawnRun].map((body) => [body.status, body.failure?.code, body.failure?.details?.reason]);
    expect(reasons).toEqual([
      ["failed", "tool-invocation-failed", "handler-memory-exceeded"],
      ["failed", "tool-invocation-failed", "handler-cpu-exceeded"],
      ["failed", "tool-invocation-failed", "handler-permission-denied"],
      ["failed", "tool-invocation-failed", "handler-permission-denied"],
    ]);
    expect(hogRun.failure.message).toContain("more than 48 MB of memory");
    expect(spinRun.failure.message).toContain("more than 500 ms of CPU time");
    expect(fs.existsSync(target)).toBe(false);
    // The stopped sandboxes were replaced: the same tools answer again.
    const after = await run(escape, { action: "tmp" });
    expect(after.status).toBe("completed");
    expect(completedCall(await journalOf(after.id))).toMatchObject({ ok: true, output: { text: "scratch" } });
    const health = await fetch(`${server.baseUrl}/health`);
    expect(health.status).toBe(200);
  }, 120_000);
});

describe("artifacts", () => {
  it("a filesystem modulePath that does not exist is refused at registration", async () => {
    const manifest = toolManifest({ spec: undefined, codeArtifactRef: { kind: "filesystem", modulePath: path.join(folder, "missing.mjs") } });
    const refused = expectError(await api("POST", "/v1/tools", { ...manifest, projectId: tenant.projectId }), 400, "validation-failed");
    expect(refused.details.issues).toEqual([{ path: "/codeArtifactRef/modulePath", message: `no handler file exists at ${JSON.stringify(path.join(folder, "missing.mjs"))} on this server` }]);
    const directory = toolManifest({ spec: undefined, codeArtifactRef: { kind: "filesystem", modulePath: folder } });
    expectError(await api("POST", "/v1/tools", { ...directory, projectId: tenant.projectId }), 400, "validation-failed");
  });
});

describe("the handler's secret", () => {
  it("appears in no run, journal, event stream or server log", async () => {
    const runs = await api("GET", "/v1/runs?limit=100");
    for (const item of runs.body.data) {
      await api("GET", `/v1/runs/${item.id}`);
      await journalOf(item.id);
      const stream = await fetch(`${server.baseUrl}/v1/runs/${item.id}/stream`, { headers: { Authorization: `Bearer ${tenant.key}` } });
      produced.push(await stream.text());
    }
    const everything = produced.join("\n");
    expect(everything).toContain("[redacted]");
    expect(everything).not.toContain(canary);
    expect(server.output()).not.toContain(canary);
  }, 60_000);
});
