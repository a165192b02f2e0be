/**
 * The MCP server across two replicas on one PostgreSQL database: a session opened on A serves requests on B (and
 * ended on B is gone on A); a client's list_changed stream on A hears a registration made on B; a call held open on
 * A answers once its approval is decided on B; past the bound, the same call sent to B attaches to the run A started.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { call, expectError, kindgi, tenantOn, type TestTenant } from "./helpers/api";
import { httpTool } from "./helpers/kernel";
import { allTools, connectMcp } from "./helpers/mcp-client";
import { startReplicas, type Replicas } from "./helpers/replicas";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

const BOUND_MS = 2_500;
const accept = { Accept: "application/json, text/event-stream" };
const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

describe.skipIf(kindgi().backend !== "postgresql")("the MCP server across two replicas", () => {
  let replicas: Replicas;
  let upstream: RecordingServer;
  let tenant: TestTenant;
  const open: Client[] = [];
  const on = (baseUrl: string) => (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(method, path, { key: tenant.key, body, baseUrl, headers });

  beforeAll(async () => {
    [replicas, upstream] = await Promise.all([
      startReplicas({ env: { KINDGI_MCP_APPROVAL_WAIT_MS: String(BOUND_MS) } }),
      startRecordingServer((request, response) => sendJson(response, 200, { saved: JSON.parse(request.body || "{}").word ?? null })),
    ]);
    tenant = await tenantOn(replicas.a.baseUrl, replicas.operatorToken, "mcp replicas");
  }, 240_000);

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close().catch(() => {})));
    await upstream?.close();
    await replicas?.stop();
  });

  async function connect(baseUrl: string): Promise<{ client: Client; listChanged: () => number }> {
    let heard = 0;
    const client = await connectMcp(`${baseUrl}/v1/mcp`, tenant.key, {
      name: "kindgi-replicas",
      before: (client) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          heard += 1;
        }),
    });
    open.push(client);
    return { client, listChanged: () => heard };
  }

  const register = async (manifest: Record<string, unknown>) => {
    const created = await on(replicas.b.baseUrl)("POST", "/v1/tools", { ...manifest, projectId: tenant.projectId });
    expect(created.status, created.text).toBe(201);
    return manifest.id as string;
  };

  async function pendingApprovalOf(toolId: string): Promise<{ id: string }> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const pending = await on(replicas.b.baseUrl)("GET", "/v1/approvals?status=pending&limit=100");
      const found = pending.body.data.find((approval: { tool: { id: string } | null }) => approval.tool?.id === toolId);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no pending approval of ${toolId}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("serves a session opened on A on B, and one ended on B is 404 on A", async () => {
    const opened = await on(replicas.a.baseUrl)("POST", "/v1/mcp", initialize, accept);
    const sessionId = opened.headers.get("mcp-session-id") as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const listed = await on(replicas.b.baseUrl)("POST", "/v1/mcp", list, { ...accept, "Mcp-Session-Id": sessionId });
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map((tool: { name: string }) => tool.name)).toContain("current-time");
    expect((await on(replicas.b.baseUrl)("DELETE", "/v1/mcp", undefined, { "Mcp-Session-Id": sessionId })).status).toBe(200);
    expectError(await on(replicas.a.baseUrl)("POST", "/v1/mcp", list, { ...accept, "Mcp-Session-Id": sessionId }), 404, "not-found");
  });

  it("tells a client listening on A of a tool registered on B", async () => {
    const { client, listChanged } = await connect(replicas.a.baseUrl);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const toolId = await register(httpTool(upstream));
    const deadline = Date.now() + 10_000;
    while (listChanged() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(listChanged()).toBeGreaterThan(0);
    expect((await allTools(client)).map((tool) => tool.name)).toContain(toolId);
  });

  it("answers a call held on A once its approval is decided on B", async () => {
    const toolId = await register(httpTool(upstream, { mutating: true, effects: [{ kind: "writes" }] }));
    const { client } = await connect(replicas.a.baseUrl);
    const before = upstream.requests.length;
    const result = client.callTool({ name: toolId, arguments: { word: "across" } }) as Promise<CallToolResult>;
    const approval = await pendingApprovalOf(toolId);
    expect((await on(replicas.b.baseUrl)("POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve" })).status).toBe(200);
    const answered = await result;
    expect(answered.isError).toBeFalsy();
    expect(answered.structuredContent).toEqual({ saved: "across" });
    expect(upstream.requests.slice(before).map((request) => JSON.parse(request.body))).toEqual([{ word: "across" }]);
  });

  it("past the bound on A, the same call sent to B attaches to A's run and answers its outcome", async () => {
    const toolId = await register(httpTool(upstream, { mutating: true, effects: [{ kind: "writes" }] }));
    const onA = await connect(replicas.a.baseUrl);
    const onB = await connect(replicas.b.baseUrl);
    const first = (await onA.client.callTool({ name: toolId, arguments: { word: "relay" } })) as CallToolResult;
    expect(first.isError).toBe(true);
    const approvalId = (first._meta as Record<string, string>)["kindgi/approvalId"];
    expect(approvalId).toBeDefined();
    const second = onB.client.callTool({ name: toolId, arguments: { word: "relay" } }) as Promise<CallToolResult>;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await on(replicas.a.baseUrl)("POST", `/v1/approvals/${approvalId}/complete`, { decision: "approve" })).status).toBe(200);
    const answered = await second;
    expect(answered.isError).toBeFalsy();
    expect(answered.structuredContent).toEqual({ saved: "relay" });
    expect(answered._meta).toMatchObject({ "kindgi/approvalId": approvalId, "kindgi/runId": (first._meta as Record<string, string>)["kindgi/runId"] });
    const runs = await on(replicas.b.baseUrl)("GET", `/v1/runs?toolId=${encodeURIComponent(toolId)}`);
    expect(runs.body.data).toHaveLength(1);
  });
});
