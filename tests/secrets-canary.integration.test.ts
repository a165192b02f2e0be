/**
 * A canary secret is used by everything in a run that can use a secret — an HTTP tool's bearer auth, a header auth
 * on a failing call, a tenant model provider's API key — while the receiving servers echo what they got back. Then
 * everything the run produced is searched for it: the run, its journal, the event stream, the conversation, the
 * secret and provider listings, and the server's own log output. It must appear nowhere.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgresDatabase, newOperatorToken, startServer, type RunningServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { startWireServer, type WireServer } from "../lib/models/providers/testing/wire-server";

let receiver: RecordingServer;
let wire: WireServer;
let server: RunningServer;
let database: { url: string; drop: () => Promise<void> } | null = null;
const canary = `canary-${randomBytes(12).toString("hex")}`;
const operatorToken = newOperatorToken();

beforeAll(async () => {
  receiver = await startRecordingServer((request, response) => {
    // Echo every header, the Authorization one included, in the result or in an error body.
    if (request.url.startsWith("/fail")) return sendJson(response, 502, { error: `upstream refused token ${String(request.headers["x-api-key"])}` });
    sendJson(response, 200, { headers: request.headers });
  });
  wire = await startWireServer();
  if (process.env.KINDGI_TEST_DATABASE_URL) database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL);
  server = await startServer({ env: { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), KINDGI_DEV_PROVIDERS: "1", KINDGI_ALLOW_PRIVATE_PROVIDER_URLS: "1" } });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await receiver.close();
  await wire.close();
  await database?.drop();
  if (server?.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

describe("a canary secret used in a run", () => {
  it("appears in nothing the run produced, nor in the server log", async () => {
    const tenantResponse = await fetch(`${server.baseUrl}/v1/tenants`, {
      method: "POST",
      headers: { Authorization: `Bearer ${operatorToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "canary" }),
    });
    expect(tenantResponse.status).toBe(201);
    const tenant = await tenantResponse.json();
    const key: string = tenant.apiKey.key;
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, text: await response.text() };
    };
    const produced: string[] = [];
    const record = async (method: string, path: string, body?: unknown) => {
      const response = await api(method, path, body);
      produced.push(response.text);
      return { status: response.status, body: response.text ? JSON.parse(response.text) : undefined };
    };

    expect((await record("POST", "/v1/secrets", { name: "upstream-token", value: canary })).status).toBe(201);
    const base = { version: "1.0.0", input: { type: "object", properties: { q: { type: "string" } }, required: ["q"] }, output: { type: "object" }, mutating: false, network: { kind: "allowlist", hosts: [receiver.hostPort] } };
    const bearer = { ...base, id: "canary.bearer", description: "Bearer auth", spec: { kind: "http", method: "GET", urlTemplate: `${receiver.origin}/echo?q={q}`, authorization: { kind: "bearer", secretRef: { envName: "TOKEN", name: "upstream-token" } } } };
    const header = { ...base, id: "canary.header", description: "Header auth on a failing call", spec: { kind: "http", method: "GET", urlTemplate: `${receiver.origin}/fail?q={q}`, authorization: { kind: "header", headerName: "X-Api-Key", secretRef: { envName: "TOKEN", name: "upstream-token" } } } };
    expect((await record("POST", "/v1/tools", { ...bearer, projectId: tenant.project.id })).status).toBe(201);
    expect((await record("POST", "/v1/tools", { ...header, projectId: tenant.project.id })).status).toBe(201);
    const provider = await record("POST", "/v1/providers", { id: "canary-llm", kind: "openai-compatible", baseUrl: `${wire.url}/v1`, apiKeySecret: "upstream-token", models: [{ name: "canary-model", features: ["tool-use"] }] });
    expect(provider.status).toBe(201);

    const tools = [{ id: "canary.bearer", version: "1.0.0" }, { id: "canary.header", version: "1.0.0" }];
    const scripted = { id: "canary.scripted", version: "1.0.0", name: "Canary", instructions: "Use the tools.", capabilities: [{}], tools, retrieval: [], guardrails: [], preferredProvider: "scripted", toolErrors: { retryOn: ["tool-error"], maxRetries: 1 } };
    expect((await record("POST", "/v1/agents", { ...scripted, projectId: tenant.project.id })).status).toBe(201);
    const conversation = await record("POST", "/v1/conversations", { agent: { id: scripted.id } });
    const userMessage = JSON.stringify({ script: [{ toolCalls: [{ name: "canary.bearer", arguments: { q: "a" } }, { name: "canary.header", arguments: { q: "b" } }] }, { text: "done" }] });
    const run = await record("POST", "/v1/runs", { agent: { id: scripted.id }, input: { userMessage, conversationId: conversation.body.id } });
    expect(run.status).toBe(201);
    expect(run.body.status).toBe("completed");
    // The receiving server really got the secret, so it was resolved and sent.
    expect(receiver.requests.some((request) => request.headers.authorization === `Bearer ${canary}`)).toBe(true);
    expect(receiver.requests.some((request) => request.headers["x-api-key"] === canary)).toBe(true);

    // A tenant provider whose API answers 401 with the key it was sent.
    const viaProvider = { ...scripted, id: "canary.provider", tools: [], preferredProvider: "canary-llm" };
    expect((await record("POST", "/v1/agents", { ...viaProvider, projectId: tenant.project.id })).status).toBe(201);
    wire.enqueue({ status: 401, json: { error: { message: `Incorrect API key provided: ${canary}` } } });
    const failed = await record("POST", "/v1/runs", { agent: { id: viaProvider.id }, input: { userMessage: "hi" } });
    expect(failed.body).toMatchObject({ status: "failed", failure: { code: "provider-auth-failed" } });
    expect(wire.requests.at(-1)?.headers.authorization).toBe(`Bearer ${canary}`);

    for (const id of [run.body.id, failed.body.id]) {
      await record("GET", `/v1/runs/${id}`);
      await record("GET", `/v1/runs/${id}/journal?limit=1000`);
      const stream = await fetch(`${server.baseUrl}/v1/runs/${id}/stream`, { headers: { Authorization: `Bearer ${key}` } });
      produced.push(await stream.text());
    }
    await record("GET", "/v1/runs");
    await record("GET", `/v1/conversations/${conversation.body.id}/messages`);
    await record("GET", "/v1/secrets");
    await record("GET", "/v1/providers");
    await record("GET", "/v1/providers/canary-llm");

    const everything = produced.join("\n");
    expect(everything).toContain("[redacted]");
    expect(everything).not.toContain(canary);
    expect(server.output()).not.toContain(canary);
  }, 120_000);
});
