/**
 * `/v1/mcp` calls that take time, driven by the official SDK's client: a tool's log lines and progress as
 * notifications, a call held open while a person decides its approval (approved, edited, rejected, not decided in
 * time and then called again), and `notifications/tools/list_changed` on the GET stream. A server of its own, with a
 * short approval bound (KINDGI_MCP_APPROVAL_WAIT_MS).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema, type CallToolResult, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { call, tenantOn, toolManifest, type TestTenant } from "./helpers/api";
import { httpTool } from "./helpers/kernel";
import { allTools, connectMcp } from "./helpers/mcp-client";
import { root, startOwnServer, type OwnServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

/** The approval bound of this server. */
const BOUND_MS = 3_000;

let own: OwnServer;
let upstream: RecordingServer;
let tenant: TestTenant;
const open: Client[] = [];

beforeAll(async () => {
  own = await startOwnServer({ KINDGI_MCP_APPROVAL_WAIT_MS: String(BOUND_MS), KINDGI_MCP_STDIO: "allow" });
  upstream = await startRecordingServer((request, response) => {
    const body = request.body ? JSON.parse(request.body) : {};
    sendJson(response, 200, { saved: body.word ?? null });
  });
  tenant = await tenantOn(own.server.baseUrl, own.operatorToken, "mcp calls");
}, 180_000);

afterAll(async () => {
  await Promise.all(open.map((client) => client.close().catch(() => {})));
  await upstream?.close();
  await own?.stop();
});

const api = (method: string, urlPath: string, body?: unknown) => call(method, urlPath, { key: tenant.key, body, baseUrl: own.server.baseUrl });

async function register(manifest: Record<string, unknown>): Promise<string> {
  const created = await api("POST", "/v1/tools", { ...manifest, projectId: tenant.projectId });
  expect(created.status, created.text).toBe(201);
  return manifest.id as string;
}

/** A mutating HTTP tool: every call asks a person first. */
const mutatingTool = () => register(httpTool(upstream, { mutating: true, effects: [{ kind: "writes" }] }));

type Heard = { logs: { level: string; logger?: string; data: unknown }[]; listChanged: number };

async function connect(): Promise<{ client: Client; heard: Heard }> {
  const heard: Heard = { logs: [], listChanged: 0 };
  const client = await connectMcp(`${own.server.baseUrl}/v1/mcp`, tenant.key, {
    before: (client) => {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        heard.logs.push(notification.params);
      });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heard.listChanged += 1;
      });
    },
  });
  open.push(client);
  return { client, heard };
}

/** Calls `name`, collecting its progress notifications; the SDK's request timeout stays at its default (60 s). */
function callWithProgress(client: Client, name: string, args: Record<string, unknown>): { result: Promise<CallToolResult>; progress: Progress[] } {
  const progress: Progress[] = [];
  const result = client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, { onprogress: (update) => progress.push(update) }) as Promise<CallToolResult>;
  return { result, progress };
}

/** The pending approval of `toolId`'s call, once it is asked. */
async function pendingApprovalOf(toolId: string): Promise<{ id: string; runId: string }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pending = await api("GET", "/v1/approvals?status=pending&limit=100");
    const found = pending.body.data.find((approval: { tool: { id: string } | null }) => approval.tool?.id === toolId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no pending approval of ${toolId}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const textOf = (result: CallToolResult) => (result.content as { type: string; text: string }[]).map((item) => item.text);
const decide = (approvalId: string, body: Record<string, unknown>) => api("POST", `/v1/approvals/${approvalId}/complete`, body);

describe("/v1/mcp: a tool's logs and progress", () => {
  it("relays a handler's log lines as notifications/message and its context.progress as notifications/progress, before the result", async () => {
    const toolId = await register(
      toolManifest({
        id: `test.reporter-${Date.now().toString(36)}`,
        input: { type: "object", properties: { word: { type: "string" } } },
        output: { type: "object" },
        spec: undefined,
        effects: undefined,
        mutating: false,
        sandbox: "strict",
        codeArtifactRef: { kind: "filesystem", modulePath: path.join(own.handlers, "reporter.mjs") },
      }),
    );
    const { client, heard } = await connect();
    const { result, progress } = callWithProgress(client, toolId, { word: "hi" });
    const answered = await result;
    expect(answered.isError).toBeFalsy();
    expect(answered.structuredContent).toEqual({ done: true, word: "hi" });
    // Heard before the result resolved: the notifications came first on the call's stream.
    expect(heard.logs.map((log) => [log.level, log.logger, log.data])).toEqual([
      ["info", toolId, "Tool execution started"],
      ["info", toolId, 'Tool processing data {"step":2}'],
      ["warning", toolId, "Tool execution completed"],
    ]);
    expect(progress).toEqual([
      { progress: 0, total: 100, message: "starting" },
      { progress: 50, total: 100 },
      { progress: 100, total: 100, message: "done" },
    ]);
    // The log lines are journaled as well; progress is not.
    const runId = (answered._meta as Record<string, string>)["kindgi/runId"];
    const journal = await api("GET", `/v1/runs/${runId}/journal`);
    expect(journal.body.data.filter((event: { type: string }) => event.type === "tool-logged").map((event: { data: { message: string } }) => event.data.message)).toEqual(["Tool execution started", 'Tool processing data {"step":2}', "Tool execution completed"]);
  });
});

describe("/v1/mcp: a tool behind an upstream MCP server", () => {
  it("calls server-everything's tools through the catalog: its text, and its image content passed through", async () => {
    const everything = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    const endpoint = await api("POST", "/v1/mcp/endpoints", { name: `everything${Date.now().toString(36)}`, endpoint: `mcp+stdio://node ${everything} stdio`, projectId: tenant.projectId });
    expect(endpoint.status, endpoint.text).toBe(201);
    const byName = new Map<string, string>(endpoint.body.tools.map((tool: { name: string; toolId: string }) => [tool.name, tool.toolId]));
    const echo = byName.get("echo") as string;
    const image = (byName.get("get-tiny-image") ?? byName.get("getTinyImage")) as string;
    expect(echo).toBeDefined();
    expect(image).toBeDefined();
    const { client } = await connect();
    const echoed = await client.callTool({ name: echo, arguments: { message: "through the gateway" } });
    expect(echoed.isError).toBeFalsy();
    expect(textOf(echoed as CallToolResult).join("\n")).toContain("Echo: through the gateway");
    const pictured = (await client.callTool({ name: image, arguments: {} })) as CallToolResult;
    expect(pictured.isError).toBeFalsy();
    expect(pictured.content).toContainEqual(expect.objectContaining({ type: "image", mimeType: "image/png", data: expect.any(String) }));
    // Each call is a run of the kernel, started over MCP.
    const runs = await api("GET", `/v1/runs?toolId=${encodeURIComponent(echo)}&origin=mcp`);
    expect(runs.body.data).toHaveLength(1);
  });
});

describe("/v1/mcp: a call that waits for a person's approval", () => {
  it("stays open, names the approval and its console link, and answers the result once it is approved", async () => {
    const toolId = await mutatingTool();
    const { client, heard } = await connect();
    const before = upstream.requests.length;
    const { result, progress } = callWithProgress(client, toolId, { word: "approved" });
    const approval = await pendingApprovalOf(toolId);
    // The inbox has it, started over MCP.
    const inbox = await api("GET", `/v1/approvals/${approval.id}`);
    expect(inbox.body).toMatchObject({ status: "pending", origin: { kind: "mcp", attended: true }, arguments: { word: "approved" } });
    expect(upstream.requests.length).toBe(before);
    expect((await decide(approval.id, { decision: "approve", rationale: "fine" })).status).toBe(200);
    const answered = await result;
    expect(answered.isError).toBeFalsy();
    expect(answered.structuredContent).toEqual({ saved: "approved" });
    expect(answered._meta).toMatchObject({ "kindgi/approvalId": approval.id, "kindgi/approval": "approved", "kindgi/runId": approval.runId });
    const link = `${own.server.baseUrl}/approvals/${approval.id}`;
    expect(progress).toEqual([{ progress: 0, message: expect.stringContaining(link) }]);
    expect(heard.logs).toContainEqual({ level: "notice", logger: "kindgi.approvals", data: expect.stringContaining(`waiting for approval ${approval.id}`) });
    expect(upstream.requests.slice(before).map((request) => JSON.parse(request.body))).toEqual([{ word: "approved" }]);
  });

  it("answers isError with the reviewer's reason when it is rejected, and the tool is not called", async () => {
    const toolId = await mutatingTool();
    const { client } = await connect();
    const before = upstream.requests.length;
    const { result } = callWithProgress(client, toolId, { word: "rejected" });
    const approval = await pendingApprovalOf(toolId);
    expect((await decide(approval.id, { decision: "reject", rationale: "not on a Friday" })).status).toBe(200);
    const answered = await result;
    expect(answered.isError).toBe(true);
    expect(textOf(answered).join("\n")).toContain("not on a Friday");
    expect(answered._meta).toMatchObject({ "kindgi/approvalId": approval.id, "kindgi/approval": "rejected" });
    expect(upstream.requests.length).toBe(before);
  });

  it("runs with the arguments a reviewer edited, and tells the client they were edited", async () => {
    const toolId = await mutatingTool();
    const { client } = await connect();
    const before = upstream.requests.length;
    const { result } = callWithProgress(client, toolId, { word: "draft" });
    const approval = await pendingApprovalOf(toolId);
    expect((await decide(approval.id, { decision: "approve", arguments: { word: "final" } })).status).toBe(200);
    const answered = await result;
    expect(answered.isError).toBeFalsy();
    expect(answered.structuredContent).toEqual({ saved: "final" });
    expect(answered._meta).toMatchObject({ "kindgi/approval": "approved", "kindgi/editedArguments": { word: "final" } });
    expect(textOf(answered)).toContainEqual(expect.stringContaining('edited arguments: {"word":"final"}'));
    expect(upstream.requests.slice(before).map((request) => JSON.parse(request.body))).toEqual([{ word: "final" }]);
  });

  it("not decided within the bound: answers 'waiting for approval'; the same call again waits for that approval and answers its outcome — one approval, one run", async () => {
    const toolId = await mutatingTool();
    const { client } = await connect();
    const before = upstream.requests.length;
    const started = Date.now();
    const first = await client.callTool({ name: toolId, arguments: { word: "later" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(BOUND_MS - 200);
    expect(first.isError).toBe(true);
    const approvalId = /waiting for approval ([0-9a-f-]{36})/.exec(textOf(first as CallToolResult)[0])?.[1];
    expect(approvalId).toBeDefined();
    expect(textOf(first as CallToolResult)[0]).toContain(`${own.server.baseUrl}/approvals/${approvalId}`);

    // Called again with the same arguments (any key order): it attaches to the same approval and run.
    const { result } = callWithProgress(client, toolId, { word: "later" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await decide(approvalId as string, { decision: "approve" })).status).toBe(200);
    const second = await result;
    expect(second.isError).toBeFalsy();
    expect(second.structuredContent).toEqual({ saved: "later" });
    expect(second._meta).toMatchObject({ "kindgi/approvalId": approvalId, "kindgi/runId": (first._meta as Record<string, string>)["kindgi/runId"] });

    const approvals = await api("GET", "/v1/approvals?limit=100");
    expect(approvals.body.data.filter((approval: { tool: { id: string } | null }) => approval.tool?.id === toolId)).toHaveLength(1);
    const runs = await api("GET", `/v1/runs?toolId=${encodeURIComponent(toolId)}`);
    expect(runs.body.data).toHaveLength(1);
    expect(upstream.requests.slice(before).map((request) => JSON.parse(request.body))).toEqual([{ word: "later" }]);

    // Its outcome answered, the same call once more is a new call (a new run, a new approval).
    const third = await client.callTool({ name: toolId, arguments: { word: "later" } });
    const thirdApproval = /waiting for approval ([0-9a-f-]{36})/.exec(textOf(third as CallToolResult)[0])?.[1];
    expect(thirdApproval).toBeDefined();
    expect(thirdApproval).not.toBe(approvalId);
  });

  it("another credential's same call does not attach to a held approval", async () => {
    const toolId = await mutatingTool();
    const { client } = await connect();
    const first = await client.callTool({ name: toolId, arguments: { word: "mine" } });
    const approvalId = /waiting for approval ([0-9a-f-]{36})/.exec(textOf(first as CallToolResult)[0])?.[1];
    const minted = await api("POST", "/v1/tokens", { name: "second key" });
    expect(minted.status, minted.text).toBe(201);
    const otherClient = await connectMcp(`${own.server.baseUrl}/v1/mcp`, minted.body.key, { name: "kindgi-tests-2" });
    open.push(otherClient);
    const other = await otherClient.callTool({ name: toolId, arguments: { word: "mine" } });
    const otherApproval = /waiting for approval ([0-9a-f-]{36})/.exec(textOf(other as CallToolResult)[0])?.[1];
    expect(otherApproval).toBeDefined();
    expect(otherApproval).not.toBe(approvalId);
    // The inbox says which key started it over MCP.
    expect((await api("GET", `/v1/approvals/${otherApproval}`)).body.origin).toMatchObject({ kind: "mcp", apiKeyName: "second key", attended: true });
  });
});

describe("/v1/mcp: notifications/tools/list_changed", () => {
  it("tells a connected client when a tool is registered, and its next tools/list has it", async () => {
    const { client, heard } = await connect();
    // The SDK's client opens the GET stream after initializing; give it a moment to be listening.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const toolId = await register(httpTool(upstream));
    const deadline = Date.now() + 10_000;
    while (heard.listChanged === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard.listChanged).toBeGreaterThan(0);
    expect((await allTools(client)).map((tool) => tool.name)).toContain(toolId);
  });
});
