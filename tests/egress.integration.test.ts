/**
 * The tool's network policy binds the code that runs for it, through agent runs over HTTP: a pack handler at
 * `context-isolated` and `strict`, and a stdio MCP server, each probe with plain `fetch`, `net.connect` and
 * `dns.lookup` (tests/fixtures/handlers/probes.mjs) against two recording servers on loopback. With an allowlist
 * naming one of them, that one sees the probes and the other sees nothing (`network-denied`); `none` reaches nothing;
 * `unrestricted` still refuses loopback; a direct DNS lookup fails. The server keeps answering meanwhile. A second
 * server, started with KINDGI_BWRAP=/nonexistent, fails such calls with `sandbox-unavailable` and says why in its log.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, toolManifest } from "./helpers/api";
import { script } from "./helpers/kernel";
import { freshPostgresDatabase, newOperatorToken, root, startServer, type RunningServer } from "./helpers/server";

/** A TCP server on loopback that records what each connection sent first and answers HTTP or echoes a line. */
type Recorder = { port: number; seen: string[]; close: () => void };

function recorder(): Promise<Recorder> {
  const seen: string[] = [];
  const server = net.createServer((socket) => {
    socket.once("data", (chunk) => {
      const text = chunk.toString("utf8");
      seen.push(text.split("\r\n")[0]);
      if (text.startsWith("GET ")) socket.end("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 8\r\nconnection: close\r\n\r\nrecorded");
      else socket.end(`echo ${text}`);
    });
    socket.on("error", () => {});
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ port: (server.address() as net.AddressInfo).port, seen, close: () => server.close() })));
}

const operatorToken = newOperatorToken();
let server: RunningServer;
let unconfined: RunningServer;
let database: { url: string; drop: () => Promise<void> } | null = null;
let folder: string;
let allowed: Recorder;
let other: Recorder;
let tenant: { key: string; projectId: string };
let closedTenant: { key: string; projectId: string };

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-egress-handlers-"));
  fs.cpSync(path.join(root, "tests/fixtures/handlers"), folder, { recursive: true });
  [allowed, other] = await Promise.all([recorder(), recorder()]);
  if (process.env.KINDGI_TEST_DATABASE_URL) database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL);
  const env = { NODE_ENV: "test", KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_DEV_PROVIDERS: "1", KINDGI_MCP_STDIO: "allow", KINDGI_SECRETS_KEY: randomBytes(32).toString("base64") };
  // The fail-closed server has a database of its own (PGlite) so the two never share state.
  [server, unconfined] = await Promise.all([startServer({ env: { ...env, DATABASE_URL: database?.url } }), startServer({ env: { ...env, KINDGI_BWRAP: "/nonexistent" } })]);
  tenant = await newTenant(server);
  closedTenant = await newTenant(unconfined);
}, 240_000);

afterAll(async () => {
  await Promise.all([server?.stop(), unconfined?.stop()]);
  await database?.drop();
  for (const running of [server, unconfined]) if (running?.dataDir) fs.rmSync(running.dataDir, { recursive: true, force: true });
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
  allowed?.close();
  other?.close();
});

async function newTenant(on: RunningServer) {
  const created = await call("POST", "/v1/tenants", { key: operatorToken, body: { name: "egress" }, baseUrl: on.baseUrl });
  expect(created.status).toBe(201);
  return { key: created.body.apiKey.key, projectId: created.body.project.id };
}

let counter = 0;
async function registerTool(on: RunningServer, owner: typeof tenant, overrides: Record<string, unknown>) {
  counter += 1;
  const manifest = toolManifest({ id: `acme.probe-${counter}-${Date.now().toString(36)}`, input: { type: "object" }, output: { type: "object" }, spec: undefined, effects: undefined, ...overrides });
  const created = await call("POST", "/v1/tools", { key: owner.key, body: { ...manifest, projectId: owner.projectId }, baseUrl: on.baseUrl });
  expect(created.status, created.text).toBe(201);
  return manifest.id as string;
}

/** Runs one call of the tool through a scripted agent run; the call's completed event data. */
async function callTool(on: RunningServer, owner: typeof tenant, toolId: string, args: Record<string, unknown>) {
  counter += 1;
  const agent = { id: `acme.agent-${counter}-${Date.now().toString(36)}`, version: "1.0.0", name: "Probe agent", instructions: "Use the tool.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: toolId, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" };
  expect((await call("POST", "/v1/agents", { key: owner.key, body: { ...agent, projectId: owner.projectId }, baseUrl: on.baseUrl })).status).toBe(201);
  const started = await call("POST", "/v1/runs", { key: owner.key, body: { agent: { id: agent.id }, input: { userMessage: script({ toolCalls: [{ name: toolId, arguments: args }] }, { text: "done" }) } }, baseUrl: on.baseUrl });
  expect(started.status, started.text).toBe(201);
  const journal = await call("GET", `/v1/runs/${started.body.id}/journal?limit=1000`, { key: owner.key, baseUrl: on.baseUrl });
  return { run: started.body, completed: journal.body.data.find((event: { type: string }) => event.type === "tool-call-completed")?.data };
}

const handlerArgs = (kind: "prober") => ({ codeArtifactRef: { kind: "filesystem", modulePath: path.join(folder, `${kind}.mjs`) } });

/** The probes every case runs: fetch and connect to each recorder, then a DNS lookup. */
function probes() {
  return [
    { kind: "fetch", url: `http://127.0.0.1:${allowed.port}/fetched` },
    { kind: "connect", host: "127.0.0.1", port: allowed.port, line: "connected" },
    { kind: "fetch", url: `http://127.0.0.1:${other.port}/fetched` },
    { kind: "connect", host: "127.0.0.1", port: other.port, line: "connected" },
    { kind: "dns", host: "example.com" },
  ];
}

const denied = { ok: false, code: "network-denied" };

/** Calls the tool while polling /health; every health check answered 200 during the call. */
async function probeWhileServing(toolId: string) {
  let serving = true;
  const checks: number[] = [];
  const poll = (async () => {
    while (serving) {
      checks.push((await fetch(`${server.baseUrl}/health`)).status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const result = await callTool(server, tenant, toolId, { probes: probes() });
  serving = false;
  await poll;
  expect(checks.length).toBeGreaterThan(0);
  expect(checks.every((status) => status === 200)).toBe(true);
  return result;
}

type Kind = "context-isolated" | "strict" | "mcp stdio";

async function toolUnder(kind: Kind, network: Record<string, unknown>) {
  if (kind === "mcp stdio") {
    return registerTool(server, tenant, { transport: "mcp", mcpEndpoint: `mcp+stdio://node ${path.join(root, "tests/fixtures/mcp/probe-server.mjs")}`, metadata: { mcpToolName: "probe" }, mutating: false, network });
  }
  return registerTool(server, tenant, { ...handlerArgs("prober"), sandbox: kind, limits: { memMB: 128, cpuMs: 10_000 }, network });
}

describe.each(["context-isolated", "strict", "mcp stdio"] as const)("code run for a tool under %s", (kind) => {
  it("reaches the allowlisted host:port with fetch and net.connect, and nothing else; DNS fails; the server keeps serving", async () => {
    const before = { allowed: allowed.seen.length, other: other.seen.length };
    const toolId = await toolUnder(kind, { kind: "allowlist", hosts: [`127.0.0.1:${allowed.port}`] });
    const { completed } = await probeWhileServing(toolId);
    expect(completed, JSON.stringify(completed)).toMatchObject({ ok: true });
    const outcomes = completed.output.outcomes;
    expect(outcomes[0]).toMatchObject({ ok: true, status: 200, body: "recorded" });
    expect(outcomes[1], JSON.stringify(outcomes)).toMatchObject({ ok: true, received: "echo connected" });
    expect(outcomes[2]).toMatchObject(denied);
    expect(outcomes[3]).toMatchObject(denied);
    expect(outcomes[4]).toMatchObject({ ok: false });
    expect(allowed.seen.slice(before.allowed)).toEqual(["GET /fetched HTTP/1.1", "connected"]);
    expect(other.seen.length).toBe(before.other);
  }, 90_000);

  it("reaches nothing under none, and no loopback under unrestricted", async () => {
    const before = { allowed: allowed.seen.length, other: other.seen.length };
    for (const network of [{ kind: "none" }, { kind: "unrestricted" }]) {
      const toolId = await toolUnder(kind, network);
      const { completed } = await callTool(server, tenant, toolId, { probes: probes() });
      expect(completed, JSON.stringify(completed)).toMatchObject({ ok: true });
      expect(completed.output.outcomes.slice(0, 4)).toEqual([expect.objectContaining(denied), expect.objectContaining(denied), expect.objectContaining(denied), expect.objectContaining(denied)]);
      expect(completed.output.outcomes[4]).toMatchObject({ ok: false });
    }
    expect(allowed.seen.length).toBe(before.allowed);
    expect(other.seen.length).toBe(before.other);
  }, 90_000);
});

describe("a server that cannot make sandboxes (KINDGI_BWRAP=/nonexistent)", () => {
  it("fails a context-isolated tool's call with sandbox-unavailable, never running it, and its log says why", async () => {
    const toolId = await registerTool(unconfined, closedTenant, { ...handlerArgs("prober"), sandbox: "context-isolated", network: { kind: "none" } });
    const { run } = await callTool(unconfined, closedTenant, toolId, { probes: [] });
    expect(run).toMatchObject({ status: "failed", failure: { code: "tool-invocation-failed", details: { reason: "sandbox-unavailable" } } });
    expect(run.failure.message).toContain("/nonexistent does not exist");
    const log = unconfined.output();
    expect(log).toContain("sandboxes are unavailable: /nonexistent does not exist");
    expect(log.split("sandboxes are unavailable").length - 1).toBe(1);
  }, 60_000);
});
