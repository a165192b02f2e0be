/**
 * OpenTelemetry traces, received by an OTLP receiver of the test's own (HTTP, `/v1/traces`) from the official SDK's
 * exporter, decoded as OTLP/JSON (the protocol's JSON mapping of the official protobuf definitions: ids in hex,
 * attributes as typed `AnyValue`s):
 * - a run whose mutating tool call waits for an approval, the server stopped while it waits and started again, the
 *   approval decided on the new process: one trace — the request's server span, the run span, the turn span
 *   (`invoke_agent`), both `chat` spans (one from each process), the approval wait and the `execute_tool` span; and a
 *   run whose handler pauses: its `pause` span;
 *   prompts and arguments are not exported while OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is unset, and are
 *   once it says `true`;
 * - the default protocol (http/protobuf) exports too;
 * - without the variables nothing is exported (nothing reaches the default endpoint) and the log says traces are off.
 */
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgresDatabase, newOperatorToken, root, startServer, type RunningServer } from "./helpers/server";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { script, sleep, unique } from "./helpers/kernel";

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean; arrayValue?: { values: AnyValue[] } };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string; attributes?: { key: string; value: AnyValue }[]; status?: { code?: number } };
/** A span as received, with its attributes read and the phase of the test it arrived in. */
type Received = { span: OtlpSpan; attributes: Record<string, unknown>; service: string | undefined; phase: string };

const SPAN_KIND_SERVER = 2;

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return value.arrayValue.values.map(valueOf);
  return undefined;
}

/** An OTLP/HTTP receiver: JSON requests decoded, protobuf ones kept as bytes. */
async function startReceiver(port = 0): Promise<{ origin: string; spans: Received[]; protobufBodies: Buffer[]; requests: () => number; phase: (name: string) => void; close: () => Promise<void> }> {
  const spans: Received[] = [];
  const protobufBodies: Buffer[] = [];
  let count = 0;
  let phase = "start";
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      count += 1;
      const body = Buffer.concat(chunks);
      if (request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      if (String(request.headers["content-type"]).startsWith("application/x-protobuf")) {
        protobufBodies.push(body);
        response.writeHead(200, { "Content-Type": "application/x-protobuf" }).end();
        return;
      }
      const decoded = JSON.parse(body.toString("utf8")) as { resourceSpans: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const resourceSpans of decoded.resourceSpans) {
        const service = resourceSpans.resource?.attributes?.find((attribute) => attribute.key === "service.name");
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) spans.push({ span, attributes: Object.fromEntries((span.attributes ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)])), service: service && (valueOf(service.value) as string), phase });
        }
      }
      response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${address.port}`,
    spans,
    protobufBodies,
    requests: () => count,
    phase: (name) => (phase = name),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let charges: RecordingServer;
let database: { url: string; drop: () => Promise<void> } | null = null;
let server: RunningServer | null = null;
let dataDir: string | undefined;
const operatorToken = newOperatorToken();
const secretsKey = randomBytes(32).toString("base64");

beforeAll(async () => {
  receiver = await startReceiver();
  charges = await startRecordingServer((_request, response) => sendJson(response, 200, { charged: true }));
  if (process.env.KINDGI_TEST_DATABASE_URL) database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL);
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await charges?.close();
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const baseEnv = () => ({ NODE_ENV: "test", DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_SECRETS_KEY: secretsKey, KINDGI_DEV_PROVIDERS: "1", KINDGI_RUN_LEASE_MS: "2000", KINDGI_RUN_POLL_MS: "200" });
const tracingEnv = (extra: Record<string, string> = {}) => ({ ...baseEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_SERVICE_NAME: "kindgi-under-test", ...extra });

async function api(base: string, key: string, method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${base}${urlPath}`, { method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("traces of a run", () => {
  it("one trace across a restart: request, run, turn, both chats, the approval wait and the tool call; content only when asked; a pause", async () => {
    server = await startServer({ env: tracingEnv() });
    dataDir = server.dataDir;
    expect(server.output()).toContain(`traces: exported to ${receiver.origin} (http/json)`);
    const tenant = (await api(server.baseUrl, operatorToken, "POST", "/v1/tenants", { name: "traces" })).body;
    const key: string = tenant.apiKey.key;
    const projectId: string = tenant.project.id;
    const toolId = unique("test.charge");
    const tool = { id: toolId, description: "Charges.", version: "1.0.0", input: { type: "object", properties: { word: { type: "string" } }, required: ["word"] }, output: { type: "object" }, mutating: true, network: { kind: "allowlist", hosts: [charges.hostPort] }, spec: { kind: "http", method: "POST", urlTemplate: `${charges.origin}/charge`, requestBody: { kind: "json-input" } }, projectId };
    expect((await api(server.baseUrl, key, "POST", "/v1/tools", tool)).status).toBe(201);
    const agentId = unique("test.agent");
    const agent = { id: agentId, version: "1.0.0", name: "Agent", instructions: "Act.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: toolId, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId };
    expect((await api(server.baseUrl, key, "POST", "/v1/agents", agent)).status).toBe(201);

    // Words that must not be exported while content capture is off: the user message and the call's arguments.
    const argumentWord = `argument-${randomBytes(6).toString("hex")}`;
    const answerWord = `answer-${randomBytes(6).toString("hex")}`;
    receiver.phase("first process");
    const started = await api(server.baseUrl, key, "POST", "/v1/runs", { agent: { id: agentId }, input: { userMessage: script({ toolCalls: [{ name: toolId, arguments: { word: argumentWord } }] }, { text: answerWord }) } });
    expect(started.status, started.text).toBe(201);
    expect(started.body.status).toBe("suspended");
    const runId: string = started.body.id;
    // The first chat span and the request's server span are exported by the first process before it stops.
    const firstChat = await until("the first chat span", () => receiver.spans.find((received) => received.span.name.startsWith("chat ")));
    await until("the request's server span", () => receiver.spans.find((received) => received.span.traceId === firstChat.span.traceId && received.span.kind === SPAN_KIND_SERVER));

    await server.stop();
    receiver.phase("second process");
    server = await startServer({ env: tracingEnv({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" }), dataDir });
    expect(server.output()).toContain("with message content");
    const pending = await api(server.baseUrl, key, "GET", `/v1/approvals?runId=${runId}&status=pending`);
    expect(pending.body.data).toHaveLength(1);
    expect((await api(server.baseUrl, key, "POST", `/v1/approvals/${pending.body.data[0].id}/complete`, { decision: "approve" })).status).toBe(200);
    await until("the run to complete", async () => ((await api(server!.baseUrl, key, "GET", `/v1/runs/${runId}`)).body.status === "completed" ? true : undefined));
    const runSpan = await until("the run span", () => receiver.spans.find((received) => received.span.name === "run agent-turn" && received.attributes["kindgi.run.id"] === runId));
    // Spans come in batches, in no particular order: wait for every one expected.
    const expected: [string, number][] = [[`invoke_agent ${agentId}`, 1], ["chat ", 2], [`await_approval ${toolId}`, 1], [`execute_tool ${toolId}`, 1]];
    const ofTheRun = () => receiver.spans.filter((received) => received.span.traceId === runSpan.span.traceId);
    const count = (prefix: string) => ofTheRun().filter((received) => received.span.name.startsWith(prefix)).length;
    await until("every span of the run", () => (expected.every(([prefix, times]) => count(prefix) >= times) ? true : undefined));

    const trace = ofTheRun();
    const byName = (prefix: string) => trace.filter((received) => received.span.name.startsWith(prefix));
    expect(runSpan.service).toBe("kindgi-under-test");
    expect(runSpan.attributes).toMatchObject({ "kindgi.run.kind": "agent-turn", "kindgi.run.status": "completed", "kindgi.run.origin": "api-key", "gen_ai.agent.id": agentId });

    // The run span is under the request that created it: Next.js's route handler span, under its server span
    // `POST /v1/runs`, in the first process.
    const handler = trace.find((received) => received.span.spanId === runSpan.span.parentSpanId);
    expect(handler?.span.name).toBe("executing api route (app) /v1/runs");
    const request = trace.find((received) => received.span.spanId === handler?.span.parentSpanId);
    expect(request?.span).toMatchObject({ kind: SPAN_KIND_SERVER, name: "POST /v1/runs" });
    expect(request?.phase).toBe("first process");

    // The turn span, under the run span, emitted by the second process when the run ended.
    const [turn] = byName("invoke_agent ");
    expect(turn.span.name).toBe(`invoke_agent ${agentId}`);
    expect(turn.span.parentSpanId).toBe(runSpan.span.spanId);
    expect(turn.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": agentId, "gen_ai.provider.name": "scripted", "kindgi.model_calls": 2, "kindgi.tool_calls": 1 });

    // Both model calls, under the turn: one before the stop, one after.
    const chats = byName("chat ").sort((a, b) => Number(BigInt(a.span.startTimeUnixNano) - BigInt(b.span.startTimeUnixNano)));
    expect(chats.map((chat) => chat.phase)).toEqual(["first process", "second process"]);
    for (const chat of chats) {
      expect(chat.span.parentSpanId).toBe(turn.span.spanId);
      expect(chat.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "scripted", "gen_ai.request.model": expect.any(String), "gen_ai.usage.input_tokens": expect.any(Number), "gen_ai.usage.output_tokens": expect.any(Number) });
    }
    expect(chats.map((chat) => chat.attributes["gen_ai.response.finish_reasons"])).toEqual([["tool-calls"], ["stop"]]);

    // The approval wait: from the first process's request to the second's decision.
    const [approval] = byName("await_approval ");
    expect(approval.span.name).toBe(`await_approval ${toolId}`);
    expect(approval.span.parentSpanId).toBe(turn.span.spanId);
    expect(approval.attributes).toMatchObject({ "kindgi.approval.decision": "approved", "gen_ai.tool.name": toolId, "gen_ai.tool.call.id": "0.0" });
    expect(BigInt(approval.span.startTimeUnixNano)).toBeLessThan(BigInt(chats[1].span.startTimeUnixNano));

    // The tool call, after the approval, under the turn.
    const [execution] = byName("execute_tool ");
    expect(execution.span.name).toBe(`execute_tool ${toolId}`);
    expect(execution.span.parentSpanId).toBe(turn.span.spanId);
    expect(execution.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": toolId, "kindgi.tool.version": "1.0.0", "kindgi.tool.transport": "http", "kindgi.tool.outcome": "completed" });
    expect(BigInt(execution.span.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(approval.span.endTimeUnixNano));
    expect(charges.requests.filter((received) => received.url === "/charge")).toHaveLength(1);

    // Content: none from the first process; the second (capture on) exports its chat's messages and the call's arguments.
    const exported = (received: Received) => JSON.stringify(received.attributes);
    for (const received of receiver.spans.filter((span) => span.phase === "first process")) {
      expect(exported(received)).not.toContain(argumentWord);
      expect(exported(received)).not.toContain(answerWord);
    }
    expect(chats[0].attributes["gen_ai.input.messages"]).toBeUndefined();
    expect(String(chats[1].attributes["gen_ai.input.messages"])).toContain(argumentWord);
    expect(String(chats[1].attributes["gen_ai.output.messages"])).toContain(answerWord);
    expect(String(execution.attributes["gen_ai.tool.call.arguments"])).toContain(argumentWord);
    // The secrets key and the API key are never exported.
    for (const received of receiver.spans) {
      expect(exported(received)).not.toContain(key);
      expect(exported(received)).not.toContain(secretsKey);
    }

    // A pause, in the second process: from the handler's pause to the answer posted to its link, under its turn.
    const askId = unique("test.ask");
    const ask = { id: askId, description: "Asks another system.", version: "1.0.0", input: { type: "object", properties: { notify: { type: "string" }, ref: { type: "string" } }, required: ["notify", "ref"] }, output: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] }, mutating: false, pauses: true, network: { kind: "allowlist", hosts: [charges.hostPort] }, codeArtifactRef: { kind: "filesystem", modulePath: path.join(root, "tests/fixtures/handlers/pauser.mjs") }, projectId };
    expect((await api(server.baseUrl, key, "POST", "/v1/tools", ask)).status).toBe(201);
    const askerId = unique("test.asker");
    expect((await api(server.baseUrl, key, "POST", "/v1/agents", { ...agent, id: askerId, tools: [{ id: askId, version: "^1.0.0" }] })).status).toBe(201);
    const paused = await api(server.baseUrl, key, "POST", "/v1/runs", { agent: { id: askerId }, input: { userMessage: script({ toolCalls: [{ name: askId, arguments: { notify: `${charges.origin}/notify`, ref: "r1" } }] }, { text: "answered" }) } });
    expect(paused.body.status, paused.text).toBe("suspended");
    const handed = JSON.parse(charges.requests.find((received) => received.url === "/notify")!.body);
    expect((await api(server.baseUrl, "", "POST", `/v1/waits/${handed.waitId}/complete`, { token: handed.token, output: { answer: "yes" } })).status).toBe(200);
    const pausedRun = await until("the paused run's span", () => receiver.spans.find((received) => received.span.name === "run agent-turn" && received.attributes["kindgi.run.id"] === paused.body.id));
    const pausedTrace = () => receiver.spans.filter((received) => received.span.traceId === pausedRun.span.traceId);
    const pausedTurn = await until("the paused run's turn", () => pausedTrace().find((received) => received.span.name === `invoke_agent ${askerId}`));
    const pause = await until("the pause span", () => pausedTrace().find((received) => received.span.name === `pause ${askId}`));
    expect(pause?.span.parentSpanId).toBe(pausedTurn?.span.spanId);
    expect(pause?.attributes).toMatchObject({ "kindgi.wait.id": handed.waitId, "kindgi.wait.outcome": "completed", "gen_ai.tool.name": askId });
    expect(pausedTrace().find((received) => received.span.name === `execute_tool ${askId}`)?.attributes["kindgi.tool.outcome"]).toBe("paused");

    await server.stop();
    server = null;
  });

  it("exports with the default protocol (http/protobuf)", async () => {
    const own = await startServer({ env: { ...baseEnv(), DATABASE_URL: undefined, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin, OTEL_BSP_SCHEDULE_DELAY: "100" } });
    try {
      expect(own.output()).toContain("(http/protobuf)");
      const before = receiver.protobufBodies.length;
      const tenant = (await api(own.baseUrl, operatorToken, "POST", "/v1/tenants", { name: "protobuf" })).body;
      const runs = await api(own.baseUrl, tenant.apiKey.key, "POST", "/v1/tools/current-time/invoke", { projectId: tenant.project.id, arguments: {} });
      expect(runs.status, runs.text).toBe(201);
      // Strings are stored as they are in protobuf: the span names are in the bytes of the exports.
      const exported = () => Buffer.concat(receiver.protobufBodies.slice(before));
      await until("the run span in a protobuf export", () => (exported().includes(Buffer.from("run tool-invocation")) ? true : undefined));
      expect(exported().includes(Buffer.from("execute_tool current-time"))).toBe(true);
    } finally {
      await own.stop();
      if (own.dataDir) fs.rmSync(own.dataDir, { recursive: true, force: true });
    }
  });

  it("without the OTEL variables: no exporter, nothing sent to the default endpoint, and the log says so", async () => {
    // The default OTLP/HTTP endpoint is 127.0.0.1:4318: a receiver there would hear any exporter made with defaults.
    const fallback = await startReceiver(4318);
    const own = await startServer({ env: { ...baseEnv(), DATABASE_URL: undefined } });
    try {
      expect(own.output()).toContain("traces: off (OTEL_EXPORTER_OTLP_ENDPOINT is not set)");
      const tenant = (await api(own.baseUrl, operatorToken, "POST", "/v1/tenants", { name: "untraced" })).body;
      const invoked = await api(own.baseUrl, tenant.apiKey.key, "POST", "/v1/tools/current-time/invoke", { projectId: tenant.project.id, arguments: {} });
      expect(invoked.status, invoked.text).toBe(201);
      // Longer than the batch processor's default delay (5 s) would not be needed: no processor exists. Wait past the
      // 100 ms a test exporter would take, and a bit.
      await sleep(1500);
      expect(fallback.requests()).toBe(0);
    } finally {
      await own.stop();
      await fallback.close();
      if (own.dataDir) fs.rmSync(own.dataDir, { recursive: true, force: true });
    }
  });
});
