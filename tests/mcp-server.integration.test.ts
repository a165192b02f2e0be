import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { allTools, connectMcp } from "./helpers/mcp-client";
import { call, expectError, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { httpTool, registerTool } from "./helpers/kernel";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let server: RecordingServer;
let tenant: TestTenant;
let other: TestTenant;
const open: Client[] = [];

beforeAll(async () => {
  server = await startRecordingServer((request, response) => {
    if (request.url.startsWith("/fail")) return sendJson(response, 500, { error: "down" });
    const body = request.body ? JSON.parse(request.body) : {};
    sendJson(response, 200, { definition: `a word: ${body.word ?? "?"}`, path: request.url });
  });
  tenant = await newTenant("mcp server");
  other = await newTenant("mcp server, other tenant");
});

afterAll(async () => {
  await Promise.all(open.map((client) => client.close().catch(() => {})));
  await server.close();
});

async function connect(key: string, query = ""): Promise<Client> {
  const client = await connectMcp(`${kindgi().baseUrl}/v1/mcp${query}`, key);
  open.push(client);
  return client;
}

const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const accept = { Accept: "application/json, text/event-stream" };

describe("/v1/mcp: authentication and origin", () => {
  it("answers 401 with a pointer to its protected-resource metadata, which says to send an API key as a bearer token", async () => {
    const response = await call("POST", "/v1/mcp", { body: initialize, headers: accept });
    expectError(response, 401, "auth-missing");
    const base = kindgi().baseUrl;
    expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/v1/mcp"`);
    expectError(await call("POST", "/v1/mcp", { key: "kgi_not-a-key", body: initialize, headers: accept }), 401, "auth-invalid");

    const metadata = await call("GET", "/.well-known/oauth-protected-resource/v1/mcp");
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({ resource: `${base}/v1/mcp`, authorization_servers: [], bearer_methods_supported: ["header"] });
    expect(typeof metadata.body.resource_documentation).toBe("string");
  });

  it("refuses a foreign Origin with 403, accepts its own", async () => {
    expectError(await call("POST", "/v1/mcp", { key: tenant.key, body: initialize, headers: { ...accept, Origin: "http://evil.example" } }), 403, "origin-not-allowed");
    // Even without a key: the origin is checked first.
    expectError(await call("POST", "/v1/mcp", { body: initialize, headers: { ...accept, Origin: "http://evil.example" } }), 403, "origin-not-allowed");
    const own = await call("POST", "/v1/mcp", { key: tenant.key, body: initialize, headers: { ...accept, Origin: kindgi().baseUrl } });
    expect(own.status).toBe(200);
    expect(own.body.result.serverInfo.name).toBe("kindgi");
  });

  it("negotiates a revision it does not know down to its latest one", async () => {
    const newer = await call("POST", "/v1/mcp", { key: tenant.key, body: { ...initialize, params: { ...initialize.params, protocolVersion: "2026-07-28" } }, headers: accept });
    expect(newer.status).toBe(200);
    expect(newer.body.result.protocolVersion).toBe("2025-11-25");
    const older = await call("POST", "/v1/mcp", { key: tenant.key, body: initialize, headers: accept });
    expect(older.body.result.protocolVersion).toBe("2025-06-18");
  });

  it("hands out a session at initialize that any request may name; DELETE ends it; an unknown one is 404; GET opens a notification stream", async () => {
    const answer = await call("POST", "/v1/mcp", { key: tenant.key, body: initialize, headers: accept });
    const sessionId = answer.headers.get("mcp-session-id");
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    expect((await call("POST", "/v1/mcp", { key: tenant.key, body: list, headers: { ...accept, "Mcp-Session-Id": sessionId as string } })).status).toBe(200);
    // Without a session, a request is served all the same; another key cannot use this one.
    expect((await call("POST", "/v1/mcp", { key: tenant.key, body: list, headers: accept })).status).toBe(200);
    expectError(await call("POST", "/v1/mcp", { key: other.key, body: list, headers: { ...accept, "Mcp-Session-Id": sessionId as string } }), 404, "not-found");

    const controller = new AbortController();
    const stream = await fetch(`${kindgi().baseUrl}/v1/mcp`, { headers: { Authorization: `Bearer ${tenant.key}`, Accept: "text/event-stream", "Mcp-Session-Id": sessionId as string }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    controller.abort();
    expectError(await call("GET", "/v1/mcp", { key: tenant.key, headers: { Accept: "application/json" } }), 406, "not-acceptable");

    expectError(await call("DELETE", "/v1/mcp", { key: tenant.key }), 400, "bad-input");
    const ended = await call("DELETE", "/v1/mcp", { key: tenant.key, headers: { "Mcp-Session-Id": sessionId as string } });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ id: sessionId, deleted: true });
    expectError(await call("POST", "/v1/mcp", { key: tenant.key, body: list, headers: { ...accept, "Mcp-Session-Id": sessionId as string } }), 404, "not-found");
    expect((await call("GET", "/v1/mcp/endpoints", { key: tenant.key })).status).toBe(200);
  });

  it("answers only the names it is known by (DNS rebinding): a foreign Host is 403 host-not-allowed", async () => {
    const url = new URL(`${kindgi().baseUrl}/v1/mcp`);
    const { request } = await import("node:http");
    const send = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { Host: host, Origin: `http://${host}`, Authorization: `Bearer ${tenant.key}`, "Content-Type": "application/json", ...accept } }, (res) => {
          let body = "";
          res.on("data", (chunk) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.end(JSON.stringify(initialize));
      });
    const foreign = await send("evil.example.com");
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).error.code).toBe("host-not-allowed");
    expect((await send(`localhost:${url.port}`)).status).toBe(200);
  });
});

describe("/v1/mcp: tools/list", () => {
  it("lists the project's tools and the built-in ones with annotations from the manifest", async () => {
    const lookup = await registerTool(tenant, httpTool(server, { metadata: { title: "Word lookup" }, effects: [{ kind: "network" }], output: { type: "object", properties: { definition: { type: "string" } } } }));
    const remover = await registerTool(tenant, httpTool(server, { mutating: true, effects: [{ kind: "deletes" }] }));
    const client = await connect(tenant.key);
    const tools = await allTools(client);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const builtin of ["current-time", "remember", "recall"]) expect(byName.has(builtin)).toBe(true);
    expect(byName.get(lookup)).toMatchObject({
      name: lookup,
      title: "Word lookup",
      description: "Looks a word up on the test server.",
      inputSchema: { type: "object", required: ["word"] },
      outputSchema: { type: "object", properties: { definition: { type: "string" } } },
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: true },
    });
    expect(byName.get(remover)?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
  });

  it("pages with nextCursor", async () => {
    const paged = await newTenant("mcp server, many tools");
    const ids: string[] = [];
    for (let index = 0; index < 53; index += 1) ids.push(await registerTool(paged, httpTool(server)));
    const client = await connect(paged.key);
    const first = await client.listTools();
    expect(first.tools.length).toBe(50);
    expect(typeof first.nextCursor).toBe("string");
    const names = (await allTools(client)).map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual([...ids, "current-time", "recall", "remember"].sort());
  });

  it("never lists another tenant's tool, and calling it is an unknown tool", async () => {
    const foreign = await registerTool(other, httpTool(server));
    const client = await connect(tenant.key);
    expect((await allTools(client)).map((tool) => tool.name)).not.toContain(foreign);
    const error = await client.callTool({ name: foreign, arguments: { word: "x" } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
  });

  it("serves a narrowed key's project only; a wide key picks a project with ?projectId=", async () => {
    const project = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "MCP other project" } });
    expect(project.status).toBe(201);
    const elsewhere = httpTool(server);
    expect((await call("POST", "/v1/tools", { key: tenant.key, body: { ...elsewhere, projectId: project.body.id } })).status).toBe(201);
    const here = await registerTool(tenant, httpTool(server));
    const minted = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "mcp narrow", projectId: tenant.projectId } });
    expect(minted.status).toBe(201);

    const narrowedNames = (await allTools(await connect(minted.body.key))).map((tool) => tool.name);
    expect(narrowedNames).toContain(here);
    expect(narrowedNames).not.toContain(elsewhere.id);
    const narrowedClient = await connect(minted.body.key);
    await expect(narrowedClient.callTool({ name: elsewhere.id, arguments: { word: "x" } })).rejects.toBeInstanceOf(McpError);

    const otherNames = (await allTools(await connect(tenant.key, `?projectId=${project.body.id}`))).map((tool) => tool.name);
    expect(otherNames).toContain(elsewhere.id);
    expect(otherNames).not.toContain(here);
    // A narrowed key cannot reach another project.
    expectError(await call("POST", `/v1/mcp?projectId=${project.body.id}`, { key: minted.body.key, body: initialize, headers: accept }), 400, "bad-input");
  });
});

describe("/v1/mcp: tools/call", () => {
  it("runs an HTTP tool as a tool-invocation run with origin mcp and answers its output", async () => {
    const toolId = await registerTool(tenant, httpTool(server));
    const client = await connect(tenant.key);
    const before = server.requests.length;
    const result = await client.callTool({ name: toolId, arguments: { word: "kindgi" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ definition: "a word: kindgi", path: "/lookup" });
    const content = result.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    expect(content[0].type).toBe("text");
    expect(JSON.parse(content[0].text)).toEqual({ definition: "a word: kindgi", path: "/lookup" });
    const seen = server.requests.slice(before);
    expect(seen.map((request) => JSON.parse(request.body))).toEqual([{ word: "kindgi" }]);

    const runs = await call("GET", `/v1/runs?toolId=${encodeURIComponent(toolId)}&origin=mcp`, { key: tenant.key });
    expect(runs.status).toBe(200);
    expect(runs.body.data).toHaveLength(1);
    expect(runs.body.data[0]).toMatchObject({ kind: "tool-invocation", status: "completed", attended: true, origin: { kind: "mcp", attended: true }, tool: { id: toolId } });
    expect((result._meta as Record<string, unknown>)["kindgi/runId"]).toBe(runs.body.data[0].id);
  });

  it("calls a built-in tool", async () => {
    const client = await connect(tenant.key);
    const result = await client.callTool({ name: "current-time", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeTypeOf("object");
  });

  it("answers a failed run and invalid arguments with isError", async () => {
    const failing = await registerTool(tenant, httpTool(server, {}, { urlTemplate: `${server.origin}/fail` }));
    const client = await connect(tenant.key);
    const failed = await client.callTool({ name: failing, arguments: { word: "x" } });
    expect(failed.isError).toBe(true);
    expect((failed.content as { text: string }[])[0].text).toMatch(/^[a-z-]+: /);

    const invalid = await client.callTool({ name: failing, arguments: { notAWord: 1 } });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as { text: string }[])[0].text).toMatch(/^validation-failed: .*arguments/);
  });

  it("serves a tool whose id is not a valid MCP tool name under its escaped name", async () => {
    const odd = httpTool(server);
    odd.id = `test.Odd Tool/${Date.now().toString(36)}`;
    const registered = await call("POST", "/v1/tools", { key: tenant.key, body: { ...odd, projectId: tenant.projectId } });
    expect(registered.status, registered.text).toBe(201);
    const name = odd.id.replace(" ", "_20").replace("/", "_2F");
    const client = await connect(tenant.key);
    expect((await allTools(client)).map((tool) => tool.name)).toContain(name);
    const result = await client.callTool({ name, arguments: { word: "odd" } });
    expect(result.structuredContent).toMatchObject({ definition: "a word: odd" });
  });

  it("records a service account's call as unattended", async () => {
    const minted = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "mcp robot", serviceAccount: { name: "mcp-robot", role: "member" } } });
    expect(minted.status).toBe(201);
    const toolId = await registerTool(tenant, httpTool(server));
    const result = await (await connect(minted.body.key)).callTool({ name: toolId, arguments: { word: "robot" } });
    expect(result.isError).toBeFalsy();
    const runs = await call("GET", `/v1/runs?toolId=${encodeURIComponent(toolId)}`, { key: tenant.key });
    expect(runs.body.data[0]).toMatchObject({ attended: false, origin: { kind: "mcp", attended: false } });
  });
});
