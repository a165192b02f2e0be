import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { allTools, connectMcp } from "./helpers/mcp-client";
import { call, expectError, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { httpTool, registerAgent, registerTool, script } from "./helpers/kernel";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let server: RecordingServer;
let tenant: TestTenant;
let other: TestTenant;
const open: Client[] = [];

beforeAll(async () => {
  server = await startRecordingServer((request, response) => {
    const body = request.body ? JSON.parse(request.body) : {};
    sendJson(response, 200, { definition: `a word: ${body.word ?? "?"}`, path: request.url });
  });
  tenant = await newTenant("toolsets");
  other = await newTenant("toolsets, other tenant");
});

afterAll(async () => {
  await Promise.all(open.map((client) => client.close().catch(() => {})));
  await server.close();
});

let serial = 0;
const uniqueName = (prefix = "Toolset") => `${prefix} ${Date.now().toString(36)}-${++serial}`;

const createToolset = (owner: TestTenant, body: Record<string, unknown>, key = owner.key) => call("POST", "/v1/toolsets", { key, body });

async function connect(key: string, toolsetId: string): Promise<Client> {
  const client = await connectMcp(`${kindgi().baseUrl}/v1/mcp/toolsets/${toolsetId}`, key, { name: "kindgi-toolset-tests" });
  open.push(client);
  return client;
}


/** A tool registered at 1.0.0 and 2.0.0, each version with its own description and input schema. */
async function twoVersionTool(owner: TestTenant): Promise<string> {
  const first = httpTool(server, { description: "Version one looks a word up." });
  await registerTool(owner, first);
  await registerTool(owner, {
    ...first,
    version: "2.0.0",
    description: "Version two looks a word up, in a language.",
    input: { type: "object", properties: { word: { type: "string" }, language: { type: "string" } }, required: ["word", "language"], additionalProperties: false },
  });
  return first.id;
}

describe("/v1/toolsets: CRUD", () => {
  it("creates a toolset in the default project, resolving each range now, and reads, lists, changes and deletes it", async () => {
    const toolId = await twoVersionTool(tenant);
    const agent = await registerAgent(tenant, { description: "Answers in one word." });
    const name = uniqueName();
    const created = await createToolset(tenant, { name, description: "For the word team", tools: [{ id: toolId, version: "^1" }, { id: "current-time", version: "*" }], agents: [{ id: agent.id, version: "1.x" }] });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({
      projectId: tenant.projectId,
      name,
      description: "For the word team",
      tools: [{ id: toolId, version: "^1" }, { id: "current-time", version: "*" }],
      agents: [{ id: agent.id, version: "1.x" }],
      resolved: { tools: [{ id: toolId, range: "^1", version: "1.0.0" }, { id: "current-time", range: "*", version: expect.any(String) }], agents: [{ id: agent.id, range: "1.x", version: "1.0.0" }] },
      mcpPath: `/v1/mcp/toolsets/${id}`,
    });
    expect(Date.parse(created.body.createdAt)).not.toBeNaN();

    const read = await call("GET", `/v1/toolsets/${id}`, { key: tenant.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const listed = await call("GET", `/v1/toolsets?projectId=${tenant.projectId}&limit=100`, { key: tenant.key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: { id: string }) => item.id)).toContain(id);

    const patched = await call("PATCH", `/v1/toolsets/${id}`, { key: tenant.key, body: { name: `${name} renamed`, description: null, tools: [{ id: toolId, version: "2.0.0" }] } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: `${name} renamed`, description: null, tools: [{ id: toolId, version: "2.0.0" }], agents: [{ id: agent.id, version: "1.x" }], resolved: { tools: [{ id: toolId, range: "2.0.0", version: "2.0.0" }] } });

    const deleted = await call("DELETE", `/v1/toolsets/${id}`, { key: tenant.key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(deleted.headers.get("x-request-id")).toBeTruthy();
    expectError(await call("GET", `/v1/toolsets/${id}`, { key: tenant.key }), 404, "not-found");
    expectError(await call("DELETE", `/v1/toolsets/${id}`, { key: tenant.key }), 404, "not-found");
  });

  it("shows version null once a reference no longer resolves", async () => {
    const tool = httpTool(server);
    await registerTool(tenant, tool);
    const created = await createToolset(tenant, { name: uniqueName(), tools: [{ id: tool.id, version: "^1" }] });
    expect(created.status, created.text).toBe(201);
    expect((await call("POST", `/v1/tools/${tool.id}/versions/1.0.0/unregister`, { key: tenant.key })).status).toBe(200);
    const read = await call("GET", `/v1/toolsets/${created.body.id}`, { key: tenant.key });
    expect(read.body.resolved.tools).toEqual([{ id: tool.id, range: "^1", version: null }]);
  });

  it("refuses bad references with an issue at each one", async () => {
    const toolId = await twoVersionTool(tenant);
    const agent = await registerAgent(tenant);
    const foreignTool = await registerTool(other, httpTool(server));
    const refused = await createToolset(tenant, {
      name: uniqueName(),
      tools: [{ id: toolId, version: "^3" }, { id: "no.such-tool", version: "*" }, { id: toolId, version: "1.0.0" }, { id: foreignTool, version: "*" }, { id: "current-time", version: "not a range!" }],
      agents: [{ id: agent.id, version: "^2" }, { id: "no.such-agent", version: "*" }],
    });
    const error = expectError(refused, 400, "validation-failed");
    const paths = error.details.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["/tools/0/version", "/tools/1/id", "/tools/2/id", "/tools/3/id", "/tools/4/version", "/agents/0/version", "/agents/1/id"]));
    expect(error.details.issues.find((issue: { path: string }) => issue.path === "/tools/0/version").message).toContain("1.0.0");
  });

  it("refuses a tool and an agent served under the same MCP name, and more than 200 references", async () => {
    const agent = await registerAgent(tenant);
    const clashing = httpTool(server, { id: agent.id });
    await registerTool(tenant, clashing);
    const clash = expectError(await createToolset(tenant, { name: uniqueName(), tools: [{ id: agent.id, version: "*" }], agents: [{ id: agent.id, version: "*" }] }), 400, "validation-failed");
    expect(clash.details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/agents/0/id"]);

    const many = Array.from({ length: 201 }, (_, index) => ({ id: `many.tool-${index}`, version: "*" }));
    expectError(await createToolset(tenant, { name: uniqueName(), tools: many }), 400, "bad-input");
    const tooMany = expectError(await createToolset(tenant, { name: uniqueName(), tools: many.slice(0, 150), agents: many.slice(0, 60) }), 400, "validation-failed");
    expect(tooMany.details.issues[0].message).toMatch(/at most 200/);
  });

  it("refuses a malformed body, a taken name, a bad name, and unknown fields", async () => {
    const name = uniqueName();
    expect((await createToolset(tenant, { name, tools: [] })).status).toBe(201);
    const taken = expectError(await createToolset(tenant, { name, tools: [] }), 409, "toolset-name-taken");
    expect(taken.details.name).toBe(name);
    // The same name in another project is fine.
    const project = await call("POST", "/v1/projects", { key: tenant.key, body: { name: uniqueName("Project") } });
    expect((await createToolset(tenant, { name, tools: [], projectId: project.body.id })).status).toBe(201);

    const badName = expectError(await createToolset(tenant, { name: " leading space", tools: [] }), 400, "bad-input");
    expect(badName.details.issues[0].path).toBe("/name");
    expectError(await createToolset(tenant, { name: "x".repeat(65), tools: [] }), 400, "bad-input");
    expectError(await createToolset(tenant, { name: uniqueName(), tools: [], extra: 1 }), 400, "unknown-field");
    expectError(await createToolset(tenant, { name: uniqueName() }), 400, "bad-input");
    expectError(await createToolset(tenant, { name: uniqueName(), tools: [{ id: "current-time" }] }), 400, "bad-input");
    expectError(await createToolset(tenant, { name: uniqueName(), tools: [], projectId: other.projectId }), 400, "bad-input");

    const second = await createToolset(tenant, { name: uniqueName(), tools: [] });
    expectError(await call("PATCH", `/v1/toolsets/${second.body.id}`, { key: tenant.key, body: { name } }), 409, "toolset-name-taken");
    expectError(await call("PATCH", `/v1/toolsets/${second.body.id}`, { key: tenant.key, body: {} }), 400, "bad-input");
    expectError(await call("PATCH", `/v1/toolsets/${second.body.id}`, { key: tenant.key, body: { projectId: other.projectId } }), 400, "unknown-field");
    const badPatch = expectError(await call("PATCH", `/v1/toolsets/${second.body.id}`, { key: tenant.key, body: { agents: [{ id: "no.such-agent", version: "*" }] } }), 400, "validation-failed");
    expect(badPatch.details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/agents/0/id"]);
    expectError(await call("GET", "/v1/toolsets/not-a-uuid", { key: tenant.key }), 400, "bad-input");
  });

  it("replays a create with the same Idempotency-Key", async () => {
    const body = { name: uniqueName(), tools: [{ id: "current-time", version: "*" }] };
    const headers = { "Idempotency-Key": `toolset-${Date.now()}` };
    const first = await call("POST", "/v1/toolsets", { key: tenant.key, body, headers });
    const second = await call("POST", "/v1/toolsets", { key: tenant.key, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get("x-idempotent-replay")).toBe("true");
    expect(second.text).toBe(first.text);

    // A DELETE repeated with its key replays the 204 instead of answering 404.
    const deleteHeaders = { "Idempotency-Key": `toolset-delete-${Date.now()}` };
    const deleted = await call("DELETE", `/v1/toolsets/${first.body.id}`, { key: tenant.key, headers: deleteHeaders });
    const again = await call("DELETE", `/v1/toolsets/${first.body.id}`, { key: tenant.key, headers: deleteHeaders });
    expect([deleted.status, again.status, again.text, again.headers.get("x-idempotent-replay")]).toEqual([204, 204, "", "true"]);
  });

  it("is 404 to another tenant and to a key narrowed to another project; a viewer reads only", async () => {
    const created = await createToolset(tenant, { name: uniqueName(), tools: [{ id: "current-time", version: "*" }] });
    const id = created.body.id as string;
    for (const [method, body] of [["GET", undefined], ["PATCH", { name: "stolen" }], ["DELETE", undefined]] as const) expectError(await call(method, `/v1/toolsets/${id}`, { key: other.key, body }), 404, "not-found");
    expect((await call("GET", "/v1/toolsets?limit=100", { key: other.key })).body.data.map((item: { id: string }) => item.id)).not.toContain(id);
    expectError(await call("POST", `/v1/mcp/toolsets/${id}`, { key: other.key, body: { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers: { Accept: "application/json, text/event-stream" } }), 404, "not-found");

    const project = await call("POST", "/v1/projects", { key: tenant.key, body: { name: uniqueName("Project") } });
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "elsewhere", projectId: project.body.id } });
    expect(narrowed.status).toBe(201);
    expectError(await call("GET", `/v1/toolsets/${id}`, { key: narrowed.body.key }), 404, "not-found");
    expectError(await call("DELETE", `/v1/toolsets/${id}`, { key: narrowed.body.key }), 404, "not-found");
    expect((await call("GET", "/v1/toolsets?limit=100", { key: narrowed.body.key })).body.data).toEqual([]);
    // A narrowed key creates in its own project.
    const own = await createToolset(tenant, { name: uniqueName(), tools: [] }, narrowed.body.key);
    expect(own.status, own.text).toBe(201);
    expect(own.body.projectId).toBe(project.body.id);

    const viewer = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "v", serviceAccount: { name: `viewer-${Date.now()}`, role: "viewer" } } });
    expect(viewer.status).toBe(201);
    expect((await call("GET", `/v1/toolsets/${id}`, { key: viewer.body.key })).status).toBe(200);
    expectError(await createToolset(tenant, { name: uniqueName(), tools: [] }, viewer.body.key), 403, "permission-denied");
    expectError(await call("PATCH", `/v1/toolsets/${id}`, { key: viewer.body.key, body: { name: "viewed" } }), 403, "permission-denied");
    expectError(await call("DELETE", `/v1/toolsets/${id}`, { key: viewer.body.key }), 403, "permission-denied");
  });
});

describe("/v1/mcp/toolsets/{toolsetId}: an MCP server of the toolset's pinned versions", () => {
  it("lists only the toolset's tools at their pinned versions and calls the pinned version", async () => {
    const toolId = await twoVersionTool(tenant);
    const outside = await registerTool(tenant, httpTool(server));
    const created = await createToolset(tenant, { name: uniqueName(), tools: [{ id: toolId, version: "^1" }, { id: "current-time", version: "*" }] });
    expect(created.status, created.text).toBe(201);
    const client = await connect(tenant.key, created.body.id);

    const tools = await allTools(client);
    expect(tools.map((tool) => tool.name)).toEqual([toolId, "current-time"]);
    expect(tools[0]).toMatchObject({ description: "Version one looks a word up.", inputSchema: { type: "object", required: ["word"] }, annotations: { readOnlyHint: true } });
    expect(Object.keys(tools[0].inputSchema.properties ?? {})).toEqual(["word"]);

    const result = await client.callTool({ name: toolId, arguments: { word: "pinned" } });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ definition: "a word: pinned", path: "/lookup" });
    const runId = (result._meta as Record<string, string>)["kindgi/runId"];
    const run = await call("GET", `/v1/runs/${runId}`, { key: tenant.key });
    expect(run.body).toMatchObject({ kind: "tool-invocation", status: "completed", tool: { id: toolId, version: "1.0.0" }, origin: { kind: "mcp" } });

    // Version 2's input (language required) is not what this toolset serves.
    const wrong = await client.callTool({ name: toolId, arguments: { word: "x", language: "en" } });
    expect(wrong.isError).toBe(true);

    // A tool of the project that the toolset does not list is an unknown tool.
    const error = await client.callTool({ name: outside, arguments: { word: "x" } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    const builtinOutside = await client.callTool({ name: "remember", arguments: {} }).catch((caught: unknown) => caught);
    expect(builtinOutside).toBeInstanceOf(McpError);
  });

  it("offers an agent as a tool whose result is the turn's answer", async () => {
    const agent = await registerAgent(tenant, { description: "Says what it is told to." });
    const created = await createToolset(tenant, { name: uniqueName(), tools: [], agents: [{ id: agent.id, version: "^1.0.0" }] });
    expect(created.status, created.text).toBe(201);
    const client = await connect(tenant.key, created.body.id);

    const [tool] = await allTools(client);
    expect(tool).toMatchObject({
      name: agent.id,
      title: "Test agent",
      description: "Says what it is told to.",
      inputSchema: { type: "object", required: ["message"], properties: { message: { type: "string" } } },
      outputSchema: { type: "object", required: ["answer", "conversationId", "runId"] },
      annotations: { readOnlyHint: false },
    });

    const result = await client.callTool({ name: agent.id, arguments: { message: script({ text: "the turn's answer" }) } });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const runId = (result._meta as Record<string, string>)["kindgi/runId"];
    expect(result.structuredContent).toEqual({ answer: "the turn's answer", conversationId: null, runId });
    const run = await call("GET", `/v1/runs/${runId}`, { key: tenant.key });
    expect(run.body).toMatchObject({ kind: "agent-turn", status: "completed", agent: { id: agent.id, version: "1.0.0" }, origin: { kind: "mcp", attended: true }, output: "the turn's answer" });

    // In a conversation: the answer names it.
    const conversation = await call("POST", "/v1/conversations", { key: tenant.key, body: { agent: { id: agent.id } } });
    expect(conversation.status).toBe(201);
    const inConversation = await client.callTool({ name: agent.id, arguments: { message: script({ text: "again" }), conversationId: conversation.body.id } });
    expect(inConversation.structuredContent).toMatchObject({ answer: "again", conversationId: conversation.body.id });

    const invalid = await client.callTool({ name: agent.id, arguments: { text: "no message" } });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as { text: string }[])[0].text).toMatch(/^validation-failed: .*\/arguments\/message/);
  });

  it("a viewer lists but cannot call; a deleted toolset is 404", async () => {
    const created = await createToolset(tenant, { name: uniqueName(), tools: [{ id: "current-time", version: "*" }] });
    const viewer = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "v", serviceAccount: { name: `mcp-viewer-${Date.now()}`, role: "viewer" } } });
    const client = await connect(viewer.body.key, created.body.id);
    expect((await allTools(client)).map((tool) => tool.name)).toEqual(["current-time"]);
    const refused = await client.callTool({ name: "current-time", arguments: {} });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0].text).toMatch(/^permission-denied/);

    expect((await call("DELETE", `/v1/toolsets/${created.body.id}`, { key: tenant.key })).status).toBe(204);
    expectError(await call("POST", `/v1/mcp/toolsets/${created.body.id}`, { key: tenant.key, body: { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers: { Accept: "application/json, text/event-stream" } }), 404, "not-found");
  });
});
