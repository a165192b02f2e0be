/**
 * MCP endpoints against real third-party servers installed from npm: `@modelcontextprotocol/server-everything` over
 * stdio, Streamable HTTP and SSE, `server-memory` and `server-filesystem` (rooted in a temporary folder) over stdio.
 * A server of its own runs with KINDGI_MCP_STDIO=allow and KINDGI_MCP_ALLOW_PRIVATE_URLS=1 (the servers listen on
 * 127.0.0.1); the shared test server, which has neither, shows the refusals.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type ApiResponse } from "./helpers/api";
import { freePort, freshPostgresDatabase, newOperatorToken, root, startServer, type RunningServer } from "./helpers/server";
import { script, sleep } from "./helpers/kernel";
import { connect } from "@/lib/tools/mcp/connection";
import type { HostResolver } from "@/lib/tools/network-policy";

const packages = path.join(root, "node_modules/@modelcontextprotocol");
const EVERYTHING = path.join(packages, "server-everything/dist/index.js");
const MEMORY = path.join(packages, "server-memory/dist/index.js");
const FILESYSTEM = path.join(packages, "server-filesystem/dist/index.js");

const operatorToken = newOperatorToken();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-mcp-"));
const children: ChildProcess[] = [];
let server: RunningServer;
let database: { url: string; drop: () => Promise<void> } | null = null;
let httpPort: number;
let ssePort: number;
let tenant: { key: string; projectId: string };
let counter = 0;

/** A link to a server's entry point under a unique path, so its process can be told apart in /proc. */
function uniqueEntry(target: string): string {
  const link = path.join(scratch, `server-${++counter}.js`);
  fs.symlinkSync(target, link);
  return link;
}

async function startNetworkServer(transport: "streamableHttp" | "sse", port: number): Promise<void> {
  const child = spawn(process.execPath, [EVERYTHING, transport], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  let output = "";
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (/listening|running/i.test(output)) return;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${transport} server did not start: ${output}`);
    await sleep(50);
  }
}

const api = (method: string, route: string, body?: unknown, key = tenant.key) => call(method, route, { key, body, baseUrl: server.baseUrl });

async function registerEndpoint(name: string, endpoint: string, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  return api("POST", "/v1/mcp/endpoints", { name, endpoint, projectId: tenant.projectId, ...extra });
}

async function agentWith(tools: Array<{ id: string; version: string }>, overrides: Record<string, unknown> = {}) {
  const id = `mcp.agent-${++counter}`;
  const response = await api("POST", "/v1/agents", {
    id, version: "1.0.0", name: "MCP agent", instructions: "Use the tools.", capabilities: [{ kind: "llm-inference" }],
    tools, retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId, ...overrides,
  });
  expect(response.status, response.text).toBe(201);
  return { id, version: "1.0.0" };
}

async function run(agent: { id: string; version: string }, userMessage: string) {
  const response = await api("POST", "/v1/runs", { agent, input: { userMessage } });
  expect(response.status, response.text).toBe(201);
  expect(response.body.status, JSON.stringify(response.body.failure)).toBe("completed");
  return response.body;
}

async function completedCalls(runId: string): Promise<any[]> {
  const response = await api("GET", `/v1/runs/${runId}/journal?since=0&limit=1000`);
  expect(response.status).toBe(200);
  // Read-only calls of one step run concurrently and complete in any order: sorted by call id (step.index).
  const order = (callId: string) => callId.split(".").map(Number);
  return response.body.data
    .filter((event: any) => event.type === "tool-call-completed")
    .map((event: any) => event.data)
    .sort((a: any, b: any) => order(a.callId)[0] - order(b.callId)[0] || order(a.callId)[1] - order(b.callId)[1]);
}

/** Pids of processes whose command line contains `needle`. */
function pidsRunning(needle: string): number[] {
  return fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      const commandLine = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      const state = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      // The server itself, not the sandbox's bwrap and launcher processes that run it.
      const sandboxing = commandLine.includes("/run/kindgi-egress/launcher.mjs");
      return commandLine.includes(needle) && !sandboxing && state.slice(state.lastIndexOf(")") + 2)[0] !== "Z" ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

beforeAll(async () => {
  [httpPort, ssePort] = [await freePort(), await freePort()];
  database = process.env.KINDGI_TEST_DATABASE_URL ? await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL) : null;
  const [started] = await Promise.all([
    startServer({ env: { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_DEV_PROVIDERS: "1", KINDGI_MCP_STDIO: "allow", KINDGI_MCP_ALLOW_PRIVATE_URLS: "1", KINDGI_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64"), DATABASE_SECRET_CANARY: "server-secret-canary" } }),
    startNetworkServer("streamableHttp", httpPort),
    startNetworkServer("sse", ssePort),
  ]);
  server = started;
  const created = await call("POST", "/v1/tenants", { key: operatorToken, body: { name: "mcp" }, baseUrl: server.baseUrl });
  expect(created.status).toBe(201);
  tenant = { key: created.body.apiKey.key, projectId: created.body.project.id };
}, 180_000);

afterAll(async () => {
  await server?.stop();
  for (const child of children) child.kill("SIGKILL");
  await database?.drop();
  if (server?.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe("server-everything over stdio", () => {
  let entry: string;
  let endpointId: string;

  it("registers every listed tool as an MCP tool version with the server's version, schemas and annotations", async () => {
    entry = uniqueEntry(EVERYTHING);
    const response = await registerEndpoint("everything", `mcp+stdio://node ${entry} stdio`);
    expect(response.status, response.text).toBe(201);
    endpointId = response.body.id;
    expect(response.body).toMatchObject({ name: "everything", transport: "stdio", status: "connected", lastError: null, serverName: "mcp-servers/everything", serverVersion: "2.0.0" });
    expect(response.body.toolCount).toBe(response.body.tools.length);
    expect(response.body.tools).toEqual(expect.arrayContaining([{ toolId: "everything.echo", version: "2.0.0", name: "echo" }, { toolId: "everything.get-structured-content", version: "2.0.0", name: "get-structured-content" }]));
    const echo = await api("GET", "/v1/tools/everything.echo/versions/2.0.0");
    expect(echo.status).toBe(200);
    expect(echo.body.manifest).toMatchObject({ transport: "mcp", mcpEndpoint: `mcp+stdio://node ${entry} stdio`, mutating: false, input: { $schema: "http://json-schema.org/draft-07/schema#", required: ["message"] }, metadata: { mcpToolName: "echo", annotations: { readOnlyHint: true } } });
    // A tool without readOnlyHint: true is mutating.
    const gzip = await api("GET", "/v1/tools/everything.gzip-file-as-resource/versions/2.0.0");
    expect(gzip.body.manifest.mutating).toBe(true);
    const status = await api("GET", `/v1/mcp/endpoints/${endpointId}`);
    expect(status.body).toMatchObject({ id: endpointId, status: "connected", toolCount: response.body.toolCount, lastRefreshAt: expect.any(String) });
    const list = await api("GET", "/v1/mcp/endpoints");
    expect(list.body.data.map((endpoint: any) => endpoint.id)).toContain(endpointId);
  });

  it("calls a tool in an agent run; structured content is validated; arguments off the server's schema go back to the model", async () => {
    const agent = await agentWith([{ id: "everything.echo", version: "^2.0.0" }, { id: "everything.get-structured-content", version: "^2.0.0" }], { toolErrors: { retryOn: ["invalid-arguments"], maxRetries: 2 } });
    const completed = await run(agent, script({ toolCalls: [{ name: "everything.echo", arguments: { message: "hello over stdio" } }, { name: "everything.get-structured-content", arguments: { location: "Chicago" } }] }, { toolCalls: [{ name: "everything.get-structured-content", arguments: { location: "Atlantis" } }] }, { text: "done" }));
    expect(completed.status).toBe("completed");
    const calls = await completedCalls(completed.id);
    expect(calls[0]).toMatchObject({ ok: true, output: { content: [{ type: "text", text: "Echo: hello over stdio" }] } });
    expect(calls[1]).toMatchObject({ ok: true, output: { temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) } });
    // Checked against the server's own (draft-07) input schema before anything is sent.
    expect(calls[2]).toMatchObject({ ok: false, error: { kind: "invalid-arguments", message: expect.stringContaining("New York, Chicago, Los Angeles") } });
  });

  it("reconnects after the server process is killed between calls, and retries a read-only call cut mid-flight", async () => {
    const agent = await agentWith([{ id: "everything.echo", version: "^2.0.0" }, { id: "everything.trigger-long-running-operation", version: "^2.0.0" }]);
    const before = pidsRunning(entry);
    expect(before).toHaveLength(1);
    process.kill(before[0], "SIGKILL");
    await sleep(200);
    const again = await run(agent, script({ toolCalls: [{ name: "everything.echo", arguments: { message: "after the kill" } }] }, { text: "ok" }));
    expect(again.status).toBe("completed");
    expect((await completedCalls(again.id))[0]).toMatchObject({ ok: true, output: { content: [{ type: "text", text: "Echo: after the kill" }] } });
    const after = pidsRunning(entry);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);

    // A read-only call in flight when its process dies is sent once more on a new connection.
    const started = api("POST", "/v1/runs", { agent, input: { userMessage: script({ toolCalls: [{ name: "everything.trigger-long-running-operation", arguments: { duration: 2, steps: 2 } }] }, { text: "ok" }) } });
    await sleep(700);
    process.kill(pidsRunning(entry)[0], "SIGKILL");
    const cut = (await started).body;
    expect(cut.status, JSON.stringify(cut.failure)).toBe("completed");
    expect((await completedCalls(cut.id))[0]).toMatchObject({ ok: true, output: { content: [expect.objectContaining({ type: "text", text: expect.stringContaining("completed") })] } });
  }, 60_000);

  it("a refresh after the tool list changed adds the new tools, unregisters the missing ones and bumps a taken version", async () => {
    // The same command line now starts another real server (server-memory), then the first one again.
    const link = path.join(scratch, "switch.js");
    fs.symlinkSync(EVERYTHING, link);
    const created = await registerEndpoint("switching", `mcp+stdio://node ${link}`);
    expect(created.status, created.text).toBe(201);
    expect(created.body.tools.map((tool: any) => tool.toolId)).toContain("switching.echo");
    fs.unlinkSync(link);
    fs.symlinkSync(MEMORY, link);
    const refreshed = await api("POST", `/v1/mcp/endpoints/${created.body.id}/refresh`);
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body).toMatchObject({ status: "connected", serverName: "memory-server", serverVersion: "0.6.3" });
    expect(refreshed.body.tools.map((tool: any) => tool.toolId)).toEqual(expect.arrayContaining(["switching.read_graph", "switching.create_entities"]));
    expect(refreshed.body.tools.map((tool: any) => tool.toolId)).not.toContain("switching.echo");
    expect((await api("GET", "/v1/tools/switching.echo/versions/2.0.0")).body.status).toBe("unregistered");
    expect((await api("GET", "/v1/tools/switching.read_graph")).body.latestVersion).toBe("0.6.3");
    fs.unlinkSync(link);
    fs.symlinkSync(EVERYTHING, link);
    const back = await api("POST", `/v1/mcp/endpoints/${created.body.id}/refresh`);
    expect(back.status, back.text).toBe(200);
    // 2.0.0 is taken (unregistered): the tool comes back as the next patch.
    expect(back.body.tools).toContainEqual({ toolId: "switching.echo", version: "2.0.1", name: "echo" });
    expect((await api("GET", "/v1/tools/switching.read_graph/versions/0.6.3")).body.status).toBe("unregistered");
  }, 60_000);

  it("unregister hides the endpoint and its tools", async () => {
    const link = uniqueEntry(EVERYTHING);
    const created = await registerEndpoint("doomed", `mcp+stdio://node ${link}`);
    expect(created.status).toBe(201);
    const gone = await api("POST", `/v1/mcp/endpoints/${created.body.id}/unregister`);
    expect(gone.status).toBe(200);
    expect(gone.body.status).toBe("unregistered");
    expect((await api("GET", "/v1/tools/doomed.echo/versions/2.0.0")).body.status).toBe("unregistered");
    expect((await api("GET", "/v1/mcp/endpoints")).body.data.map((endpoint: any) => endpoint.id)).not.toContain(created.body.id);
    await sleep(300);
    expect(pidsRunning(link)).toEqual([]);
  });
});

describe("server-everything over Streamable HTTP and SSE", () => {
  for (const [transport, prefix, pathName] of [["http", "mcp+http", "/mcp"], ["sse", "mcp+sse", "/sse"]] as const) {
    it(`discovers and calls tools over ${transport}`, async () => {
      const port = transport === "http" ? httpPort : ssePort;
      await api("POST", "/v1/secrets", { name: `mcp-${transport}-token`, value: `token-${transport}-value` });
      const response = await registerEndpoint(`every-${transport}`, `${prefix}://127.0.0.1:${port}${pathName}`, { headers: { "X-Api-Token": { secret: `mcp-${transport}-token` }, "X-Client": "kindgi-tests" } });
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({ transport, status: "connected", serverName: "mcp-servers/everything", headers: { "X-Api-Token": { secret: `mcp-${transport}-token` }, "X-Client": { value: "[set]" } } });
      expect(response.text).not.toContain(`token-${transport}-value`);
      const agent = await agentWith([{ id: `every-${transport}.echo`, version: "^2.0.0" }, { id: `every-${transport}.get-sum`, version: "^2.0.0" }]);
      const completed = await run(agent, script({ toolCalls: [{ name: `every-${transport}.echo`, arguments: { message: `hello over ${transport}` } }, { name: `every-${transport}.get-sum`, arguments: { a: 2, b: 40 } }] }, { text: "done" }));
      expect(completed.status).toBe("completed");
      const calls = await completedCalls(completed.id);
      expect(calls[0]).toMatchObject({ ok: true, output: { content: [{ type: "text", text: `Echo: hello over ${transport}` }] } });
      expect(JSON.stringify(calls[1].output)).toContain("42");
    });

    it(`over ${transport}, every request goes to the address its own check allowed, whatever DNS answers (pinned)`, async () => {
      // A name the system cannot resolve: a request reaches the server only through the address the check resolved.
      // The first answers are loopback (allowed here); then the name moves to the cloud metadata address.
      let moved = false;
      const asked: string[] = [];
      const lookup: HostResolver = async (hostname) => {
        asked.push(hostname);
        return [{ address: moved ? "169.254.169.254" : "127.0.0.1", family: 4 }];
      };
      const previous = process.env.KINDGI_MCP_ALLOW_PRIVATE_URLS;
      process.env.KINDGI_MCP_ALLOW_PRIVATE_URLS = "1";
      const port = transport === "http" ? httpPort : ssePort;
      const connection = await connect({ endpoint: `${prefix}://pinned.test:${port}${pathName}`, headers: {}, lookup });
      try {
        const echoed = await connection.client.callTool({ name: "echo", arguments: { message: "pinned" } });
        expect(echoed.content).toEqual([{ type: "text", text: "Echo: pinned" }]);
        expect(asked.length).toBeGreaterThanOrEqual(2);
        expect(new Set(asked)).toEqual(new Set(["pinned.test"]));
        moved = true;
        await expect(connection.client.callTool({ name: "echo", arguments: { message: "moved" } }, undefined, { timeout: 5000 })).rejects.toThrow(/169\.254\.169\.254 is a cloud metadata address/);
      } finally {
        await connection.client.close();
        if (previous === undefined) delete process.env.KINDGI_MCP_ALLOW_PRIVATE_URLS;
        else process.env.KINDGI_MCP_ALLOW_PRIVATE_URLS = previous;
      }
    });
  }
});

describe("server-memory and server-filesystem over stdio", () => {
  it("server-memory: discovery and a read-only call through a run", async () => {
    const memoryFile = path.join(scratch, "memory.jsonl");
    fs.writeFileSync(memoryFile, JSON.stringify({ type: "entity", name: "Ada", entityType: "person", observations: ["wrote the first program"] }) + "\n");
    const response = await registerEndpoint("memory", `mcp+stdio://env MEMORY_FILE_PATH=${memoryFile} node ${uniqueEntry(MEMORY)}`);
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ serverName: "memory-server", serverVersion: "0.6.3" });
    expect(response.body.tools.map((tool: any) => tool.toolId)).toEqual(expect.arrayContaining(["memory.create_entities", "memory.search_nodes", "memory.read_graph"]));
    expect((await api("GET", "/v1/tools/memory.search_nodes/versions/0.6.3")).body.manifest.mutating).toBe(false);
    expect((await api("GET", "/v1/tools/memory.create_entities/versions/0.6.3")).body.manifest.mutating).toBe(true);
    const agent = await agentWith([{ id: "memory.search_nodes", version: "^0.6.0" }]);
    const completed = await run(agent, script({ toolCalls: [{ name: "memory.search_nodes", arguments: { query: "Ada" } }] }, { text: "found" }));
    expect(completed.status).toBe("completed");
    const [result] = await completedCalls(completed.id);
    expect(result.ok).toBe(true);
    expect(JSON.stringify(result.output)).toContain("wrote the first program");
  });

  it("server-filesystem rooted in a temporary folder: a listing, and an error result outside the root", async () => {
    const folder = fs.mkdtempSync(path.join(scratch, "root-"));
    fs.writeFileSync(path.join(folder, "notes.txt"), "kindgi was here\n");
    const response = await registerEndpoint("files", `mcp+stdio://node ${uniqueEntry(FILESYSTEM)} ${folder}`);
    expect(response.status, response.text).toBe(201);
    expect(response.body.tools.map((tool: any) => tool.toolId)).toEqual(expect.arrayContaining(["files.list_directory", "files.read_text_file", "files.write_file"]));
    const version = response.body.serverVersion;
    expect((await api("GET", `/v1/tools/files.write_file/versions/${version}`)).body.manifest.mutating).toBe(true);
    const agent = await agentWith([{ id: "files.list_directory", version: "*" }, { id: "files.read_text_file", version: "*" }], { toolErrors: { retryOn: ["tool-error"], maxRetries: 1 } });
    const completed = await run(agent, script({ toolCalls: [{ name: "files.list_directory", arguments: { path: folder } }, { name: "files.read_text_file", arguments: { path: path.join(folder, "notes.txt") } }] }, { toolCalls: [{ name: "files.read_text_file", arguments: { path: "/etc/hostname" } }] }, { text: "listed" }));
    expect(completed.status).toBe("completed");
    const calls = await completedCalls(completed.id);
    expect(JSON.stringify(calls[0].output)).toContain("notes.txt");
    expect(JSON.stringify(calls[1].output)).toContain("kindgi was here");
    expect(calls[2]).toMatchObject({ ok: false, error: { kind: "tool-error", reason: "mcp-tool-error", message: expect.stringMatching(/denied|outside allowed/i) } });
  });

  it("a stdio server gets an allowlisted environment only (no secrets of this server)", async () => {
    const response = await registerEndpoint("envcheck", `mcp+stdio://node ${uniqueEntry(EVERYTHING)}`);
    expect(response.status).toBe(201);
    const agent = await agentWith([{ id: "envcheck.get-env", version: "^2.0.0" }]);
    const completed = await run(agent, script({ toolCalls: [{ name: "envcheck.get-env", arguments: {} }] }, { text: "ok" }));
    const [result] = await completedCalls(completed.id);
    const env = JSON.parse(result.output.content[0].text);
    expect(env.PATH).toBeTruthy();
    for (const name of ["KINDGI_SECRETS_KEY", "KINDGI_OPERATOR_TOKEN", "DATABASE_URL", "DATABASE_SECRET_CANARY", "KINDGI_DATA_DIR"]) expect(env).not.toHaveProperty(name);
  });
});

describe("rules", () => {
  it("another tenant's endpoint is 404; a viewer cannot register or refresh; bad bodies are 400", async () => {
    const listed = await api("GET", "/v1/mcp/endpoints");
    const someId = listed.body.data[0].id;
    const other = await call("POST", "/v1/tenants", { key: operatorToken, body: { name: "other" }, baseUrl: server.baseUrl });
    expectError(await api("GET", `/v1/mcp/endpoints/${someId}`, undefined, other.body.apiKey.key), 404, "not-found");
    expectError(await api("POST", `/v1/mcp/endpoints/${someId}/refresh`, undefined, other.body.apiKey.key), 404, "not-found");
    expect((await api("GET", "/v1/mcp/endpoints", undefined, other.body.apiKey.key)).body.data).toEqual([]);
    const viewer = await api("POST", "/v1/tokens", { name: "ro", serviceAccount: { name: "reader", role: "viewer" } });
    expect(viewer.status, viewer.text).toBe(201);
    expectError(await api("POST", "/v1/mcp/endpoints", { name: "nope", endpoint: "mcp+stdio://node x", projectId: tenant.projectId }, viewer.body.key), 403, "permission-denied");
    expectError(await api("POST", `/v1/mcp/endpoints/${someId}/refresh`, undefined, viewer.body.key), 403, "permission-denied");
    expect((await api("GET", `/v1/mcp/endpoints/${someId}`, undefined, viewer.body.key)).status).toBe(200);
    expectError(await api("GET", "/v1/mcp/endpoints/not-a-uuid"), 400, "bad-input");
    expectError(await registerEndpoint("bad", "http://example.com/mcp"), 400, "bad-input");
    expectError(await registerEndpoint("bad", "mcp+http://"), 400, "validation-failed");
    expectError(await registerEndpoint("everything", `mcp+stdio://node ${EVERYTHING}`), 409, "mcp-endpoint-already-registered");
    expectError(await api("POST", "/v1/mcp/endpoints", { name: "x", endpoint: "mcp+http://127.0.0.1:1/mcp", projectId: tenant.projectId, extra: 1 }), 400, "unknown-field");
    const dead = expectError(await registerEndpoint("dead", `mcp+http://127.0.0.1:${await freePort()}/mcp`), 502, "mcp-connection-failed");
    expect(dead.message).toMatch(/connect/i);
    expectError(await registerEndpoint("metadata", "mcp+http://169.254.169.254/mcp"), 403, "mcp-endpoint-refused");
  });

  it("the shared server (no KINDGI_MCP_STDIO, no private URLs) refuses stdio with 403 mcp-stdio-disabled and loopback URLs", async () => {
    const shared = await newTenant("mcp refusals");
    const refused = expectError(await call("POST", "/v1/mcp/endpoints", { key: shared.key, body: { name: "local", endpoint: `mcp+stdio://node ${EVERYTHING}`, projectId: shared.projectId } }), 403, "mcp-stdio-disabled");
    expect(refused.message).toContain("KINDGI_MCP_STDIO=allow");
    const loopback = expectError(await call("POST", "/v1/mcp/endpoints", { key: shared.key, body: { name: "loop", endpoint: `mcp+http://127.0.0.1:${httpPort}/mcp`, projectId: shared.projectId } }), 403, "mcp-endpoint-refused");
    expect(loopback.message).toContain("KINDGI_MCP_ALLOW_PRIVATE_URLS=1");
  });

  it("a manifest registered through POST /v1/tools connects on its first call", async () => {
    const manifest = { id: "direct.echo", version: "1.0.0", description: "Echoes", transport: "mcp", mcpEndpoint: `mcp+http://127.0.0.1:${httpPort}/mcp`, mutating: false, metadata: { mcpToolName: "echo" }, input: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }, output: { type: "object" } };
    const registered = await api("POST", "/v1/tools", { ...manifest, projectId: tenant.projectId });
    expect(registered.status, registered.text).toBe(201);
    expect(registered.body.warnings).toEqual([]);
    const agent = await agentWith([{ id: "direct.echo", version: "1.0.0" }]);
    const completed = await run(agent, script({ toolCalls: [{ name: "direct.echo", arguments: { message: "direct" } }] }, { text: "ok" }));
    expect((await completedCalls(completed.id))[0]).toMatchObject({ ok: true, output: { content: [{ type: "text", text: "Echo: direct" }] } });
  });
});
