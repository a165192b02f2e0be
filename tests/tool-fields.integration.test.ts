/**
 * Tool 1.3.0 fields end to end, on a server of its own (filesystem handlers and stdio MCP allowed, its log output
 * searchable): `transport` refusals and warnings at the pointers of declarations that cannot apply, at registration;
 * `needs` slots in a handler's context at sandbox `none` and `strict`, and `need-unavailable` before anything runs;
 * a `needsSpec.secrets` entry's `envName` in `context.env`, redacted everywhere; and an MCP tool's connections in its
 * `tools/call` request's `_meta`, received by a real MCP server (tests/fixtures/mcp/meta-echo.mjs).
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, toolManifest } from "./helpers/api";
import { script } from "./helpers/kernel";
import { root, startOwnServer, type OwnServer, type RunningServer } from "./helpers/server";

const canary = `env-secret-${randomBytes(12).toString("hex")}`;
const connectionToken = `connection-token-${randomBytes(12).toString("hex")}`;
let own: OwnServer;
let server: RunningServer;
let folder: string;
let tenant: { key: string; projectId: string; id: string };
const produced: string[] = [];

beforeAll(async () => {
  // The handler fixtures are copied to `own.handlers`: modulePath is absolute and `strict` reads only that folder.
  own = await startOwnServer({ KINDGI_MCP_STDIO: "allow" });
  ({ server, handlers: folder } = own);
  const created = await call("POST", "/v1/tenants", { key: own.operatorToken, body: { name: "tool fields" }, baseUrl: server.baseUrl });
  expect(created.status).toBe(201);
  tenant = { key: created.body.apiKey.key, projectId: created.body.project.id, id: created.body.tenant.id };
  expect((await api("POST", "/v1/secrets", { name: "acme-token", value: canary })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await own?.stop();
});

async function api(method: string, urlPath: string, body?: unknown) {
  const response = await call(method, urlPath, { key: tenant.key, body, baseUrl: server.baseUrl });
  produced.push(response.text);
  return response;
}

let counter = 0;
const uniqueId = (prefix: string) => `${prefix}-${++counter}-${Date.now().toString(36)}`;

async function register(manifest: Record<string, unknown>) {
  const created = await api("POST", "/v1/tools", { ...manifest, projectId: tenant.projectId });
  expect(created.status, created.text).toBe(201);
  return created.body as { toolId: string; warnings: Array<{ path: string; message: string }> };
}

/** A handler tool on `file`, at `sandbox`, with the secret `acme-token` declared under envName ACME_TOKEN. */
async function handlerTool(file: string, sandbox: "none" | "strict", overrides: Record<string, unknown> = {}) {
  const manifest = toolManifest({
    id: uniqueId("acme.fields"),
    input: { type: "object" },
    output: { type: "object" },
    spec: undefined,
    effects: undefined,
    sandbox,
    codeArtifactRef: { kind: "filesystem", modulePath: path.join(folder, file) },
    needsSpec: { secrets: { API_TOKEN: { name: "acme-token", envName: "ACME_TOKEN" } } },
    ...overrides,
  });
  const { warnings } = await register(manifest);
  // A handler in the server's process is warned that its network policy covers only context.fetch.
  expect(warnings).toEqual(sandbox === "none" ? [{ path: "/sandbox", message: expect.stringContaining("covers only what it sends through context.fetch") }] : []);
  return manifest.id as string;
}

async function run(toolId: string, args: Record<string, unknown>) {
  const agent = { id: uniqueId("acme.agent"), version: "1.0.0", name: "Fields agent", instructions: "Use the tool.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: toolId, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" };
  expect((await api("POST", "/v1/agents", { ...agent, projectId: tenant.projectId })).status).toBe(201);
  const response = await api("POST", "/v1/runs", { agent: { id: agent.id }, input: { userMessage: script({ toolCalls: [{ name: toolId, arguments: args }] }, { text: "done" }) } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function journalOf(runId: string): Promise<any[]> {
  const response = await api("GET", `/v1/runs/${runId}/journal?limit=1000`);
  expect(response.status).toBe(200);
  return response.body.data;
}

const completedCall = (events: any[]) => events.find((event) => event.type === "tool-call-completed").data;

describe("registration", () => {
  it("refuses a transport the manifest cannot honour, with the reason at /transport", async () => {
    const base = toolManifest({ id: uniqueId("acme.transport") });
    const handler = { spec: undefined, codeArtifactRef: { kind: "filesystem", modulePath: path.join(folder, "echo.mjs") } };
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ ...base, spec: undefined, transport: "native", mcpEndpoint: "mcp+http://mcp.example.com/mcp" }, "/transport", /"native" requires in-process execution, and a tool with an mcpEndpoint runs on its MCP server/],
      [{ ...base, ...handler, transport: "native", sandbox: "strict" }, "/transport", /"native" requires in-process execution, and a handler at sandbox "strict" runs in a sandbox of its own/],
      [{ ...base, transport: "mcp", mcpEndpoint: "mcp+http://mcp.example.com/mcp" }, "/transport", /"mcp" requires MCP execution on the mcpEndpoint, so an HTTP spec would never run/],
      [{ ...base, spec: undefined, transport: "mcp" }, "/mcpEndpoint", /is required when transport is "mcp"/],
    ];
    for (const [manifest, pointer, message] of cases) {
      const refused = expectError(await api("POST", "/v1/tools", { ...manifest, projectId: tenant.projectId }), 400, "validation-failed");
      expect(refused.details.issues).toEqual([{ path: pointer, message: expect.stringMatching(message) }]);
    }
    // What "native" allows: a handler in process, an HTTP spec.
    expect((await register({ ...base, ...handler, id: uniqueId("acme.native"), transport: "native", sandbox: "none" })).warnings.map((warning: { path: string }) => warning.path)).toEqual(["/sandbox"]);
    expect((await register({ ...base, id: uniqueId("acme.native"), transport: "native" })).warnings).toEqual([]);
  });

  it("registers declarations that cannot apply with a warning at each pointer, saying why", async () => {
    const handlerOnly = { sandbox: "strict", limits: { memMB: 64, cpuMs: 1000 }, needs: [{ name: "tenant" }], needsSpec: { env: { REGION: { value: "eu" } }, secrets: { KEY: { name: "acme-token" } } } };
    const http = await register(toolManifest({ id: uniqueId("acme.http"), ...handlerOnly }));
    expect(http.warnings).toEqual([
      { path: "/sandbox", message: "has no effect: sandbox sets the isolation of a pack handler, and this tool runs its HTTP `spec` and no handler" },
      { path: "/limits", message: "has no effect: limits cap a pack handler's sandbox, and this tool runs its HTTP `spec` and no handler" },
      { path: "/needs", message: "has no effect: needs slots are injected into a pack handler's context (context.needs), and this tool runs its HTTP `spec` and no handler" },
      { path: "/needsSpec/env", message: "has no effect: needsSpec.env reaches a pack handler's context.env, and this tool runs its HTTP `spec` and no handler" },
      { path: "/needsSpec/secrets", message: "has no effect: needsSpec.secrets are resolved for a pack handler (context.resolveSecret, context.env), and this tool runs its HTTP `spec` and no handler" },
    ]);
    const mcpUrl = await register(toolManifest({ id: uniqueId("acme.mcp"), spec: undefined, transport: "mcp", mcpEndpoint: "mcp+sse://mcp.example.com/sse", limits: { memMB: 64, cpuMs: 1000 }, network: { kind: "none" } }));
    expect(mcpUrl.warnings).toEqual([
      { path: "/limits", message: "has no effect: limits cap a pack handler's sandbox, and this tool runs on an MCP server reached by URL, not in a handler" },
      { path: "/network", message: "has no effect: an MCP endpoint reached by URL obeys this server's rules for MCP endpoints, not the tool's network policy" },
    ]);
  });
});

describe.each(["none", "strict"] as const)("a handler at sandbox %s", (sandbox) => {
  it("receives its needs slots by name and its envName secret in context.env, redacted in the journal", async () => {
    const toolId = await handlerTool("needs.mjs", sandbox, { needs: [{ name: "tenant" }, { name: "project" }, { name: "run" }, { name: "conversation", optional: true }, { name: "memory:note" }, { name: "blob", optional: true }] });
    const body = await run(toolId, { query: "billing email", limit: 5 });
    expect(body.status, JSON.stringify(body.failure)).toBe("completed");
    const events = await journalOf(body.id);
    const output = completedCall(events).output;
    // `conversation` is optional: present when the run has one; `blob` is optional and no run can fill it.
    const conversation = body.conversationId ? { conversation: { id: body.conversationId } } : {};
    expect(output).toEqual({
      names: ["memory:note", "project", "run", "tenant", ...Object.keys(conversation)].sort(),
      ids: { tenant: { id: tenant.id }, project: { id: tenant.projectId }, run: { id: body.id }, ...conversation },
      found: [],
      newest: [],
      frozen: true,
      tokenLength: canary.length,
      leaked: "token=[redacted]",
    });
    expect(events.filter((event) => event.type === "tool-logged").map((event) => event.data.message)).toEqual(["env token [redacted]"]);
  }, 60_000);

  it("reads the project's facts of a memory slot's type: by keywords, best match first, or the newest", async () => {
    const type = `fields-${sandbox}-${Date.now().toString(36)}`;
    for (const content of ["Invoices go out by email on the first", "Lunch is at noon", "Billing questions go to the finance team by email"]) {
      expect((await api("POST", "/v1/memory/facts", { type, content, projectId: tenant.projectId })).status).toBe(201);
    }
    expect((await api("POST", "/v1/memory/facts", { type: `${type}-other`, content: "Email billing to the other team", projectId: tenant.projectId })).status).toBe(201);
    const toolId = await handlerTool("memory-reader.mjs", sandbox, { needs: [{ name: `memory:${type}` }] });
    const body = await run(toolId, { slot: `memory:${type}`, query: "billing email", limit: 2 });
    expect(body.status, JSON.stringify(body.failure)).toBe("completed");
    const output = completedCall(await journalOf(body.id)).output;
    expect(output.found.map((fact: any) => fact.content)).toEqual(["Billing questions go to the finance team by email", "Invoices go out by email on the first"]);
    expect(output.found[0]).toEqual({ id: expect.any(String), type, content: expect.any(String), createdAt: expect.any(String) });
    expect(output.newest.map((fact: any) => fact.content)).toEqual(["Billing questions go to the finance team by email"]);
  }, 60_000);

  it("fails with need-unavailable before the handler runs when a required slot cannot be provided", async () => {
    const marker = `${sandbox}-${Date.now().toString(36)}`;
    const toolId = await handlerTool("marker.mjs", sandbox, { needs: [{ name: "tenant" }, { name: "db" }] });
    const body = await run(toolId, { marker });
    expect(body).toMatchObject({ status: "failed", failure: { code: "tool-invocation-failed", details: { reason: "need-unavailable" } } });
    expect(body.failure.message).toContain('the tool requires the needs slot "db", which this run cannot provide; the handler did not run');
    expect(fs.existsSync(path.join(folder, `ran-${marker}`))).toBe(false);
  }, 60_000);
});

describe("MCP connections", () => {
  it("an MCP tool's declared connections reach the server in the tools/call request's _meta", async () => {
    const connection = await api("POST", "/v1/connections", { app: "google", permissions: ["gmail.send", "gmail.readonly"], token: connectionToken, owner: "company" });
    expect(connection.status, connection.text).toBe(201);
    const toolId = uniqueId("meta.received");
    const { warnings } = await register({
      id: toolId, version: "1.0.0", description: "Answers with what its call carried.", transport: "mcp", mutating: false,
      mcpEndpoint: `mcp+stdio://${process.execPath} ${path.join(root, "tests/fixtures/mcp/meta-echo.mjs")}`,
      metadata: { mcpToolName: "received" }, input: { type: "object" }, output: { type: "object" },
      needsSpec: { connections: { mail: { app: "google", permissions: ["gmail.send"], as: "company" } } },
    });
    expect(warnings).toEqual([]);
    const body = await run(toolId, {});
    expect(body.status, JSON.stringify(body.failure)).toBe("completed");
    const output = completedCall(await journalOf(body.id)).output;
    expect(output).toEqual({
      meta: { "dev.kindgi/connections": { mail: { app: "google", permissions: ["gmail.send", "gmail.readonly"], owner: "company", accessToken: "[redacted]" } } },
      tokenSha256: { mail: createHash("sha256").update(connectionToken).digest("hex") },
    });
  }, 60_000);
});

describe("secrets", () => {
  it("the envName secret and the connection token appear in no run, journal or server log", async () => {
    const runs = await api("GET", "/v1/runs?limit=100");
    for (const item of runs.body.data) {
      await api("GET", `/v1/runs/${item.id}`);
      await journalOf(item.id);
    }
    const everything = produced.join("\n");
    expect(everything).toContain("[redacted]");
    expect(everything).not.toContain(canary);
    expect(everything).not.toContain(connectionToken);
    expect(server.output()).not.toContain(canary);
    expect(server.output()).not.toContain(connectionToken);
  }, 60_000);
});
