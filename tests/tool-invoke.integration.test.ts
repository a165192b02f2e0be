import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { journal, registerTool, waitForRun } from "./helpers/kernel";
import { sendJson, startRecordingServer, type RecordedRequest, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let server: RecordingServer;
/** Requests to /held wait until the test lets them go. */
let releaseHeld: () => void = () => {};
let held = new Promise<void>((resolve) => (releaseHeld = resolve));

beforeAll(async () => {
  server = await startRecordingServer(async (request: RecordedRequest, response) => {
    const url = new URL(request.url, "http://x");
    if (url.pathname === "/bad-output") return sendJson(response, 200, { lat: "north", city: "?" });
    if (url.pathname === "/held") await held;
    const body = request.body ? JSON.parse(request.body) : {};
    sendJson(response, 200, { city: body.address?.city ?? null, country: body.address?.country ?? null, units: body.units ?? null, lat: 52.52, idempotencyKey: request.headers["idempotency-key"] ?? null });
  });
});

afterAll(async () => {
  await server.close();
});

let counter = 0;

/** A geocoding HTTP tool on the recording server: a nested object and an enum in its input, defaults to fill. */
function geocodeTool(overrides: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) {
  counter += 1;
  return {
    id: `test.geocode-${Date.now().toString(36)}-${counter}`,
    description: "Geocodes an address on the test server.",
    version: "1.0.0",
    input: {
      type: "object",
      required: ["address"],
      additionalProperties: false,
      properties: {
        address: {
          type: "object",
          required: ["city"],
          additionalProperties: false,
          properties: { city: { type: "string", minLength: 1 }, country: { type: "string", default: "DE" } },
        },
        units: { enum: ["metric", "imperial"], default: "metric" },
      },
    },
    output: { type: "object", required: ["city", "lat"], properties: { city: { type: "string" }, lat: { type: "number" } } },
    mutating: false,
    network: { kind: "allowlist", hosts: [server.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${server.origin}/geocode`, requestBody: { kind: "json-input" }, ...spec },
    ...overrides,
  };
}

function invoke(tenant: { key: string }, toolId: string, version: string | null, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const path = version === null ? `/v1/tools/${encodeURIComponent(toolId)}/invoke` : `/v1/tools/${encodeURIComponent(toolId)}/versions/${version}/invoke`;
  return call("POST", path, { key: tenant.key, body, headers });
}

const types = (events: any[]) => events.map((event) => event.type);

async function keyFor(tenant: TestTenant, body: Record<string, unknown>): Promise<string> {
  const response = await call("POST", "/v1/tokens", { key: tenant.key, body });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${response.text}`);
  return response.body.key;
}

describe("POST /v1/tools/{toolId}/versions/{version}/invoke", () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await newTenant("tool invoke");
  });

  it("invokes the built-in current-time as a run: the output is the tool's JSON value, journaled and listed", async () => {
    const response = await invoke(tenant, "current-time", "1.0.0", { arguments: { timezone: "Europe/Berlin" } });
    expect(response.status).toBe(201);
    const run = response.body;
    expect(run).toMatchObject({
      kind: "tool-invocation",
      status: "completed",
      projectId: tenant.projectId,
      agent: null,
      tool: { id: "current-time", version: "1.0.0" },
      conversationId: null,
      attended: true,
      input: { arguments: { timezone: "Europe/Berlin" } },
      resolvedTools: [{ id: "current-time", range: "1.0.0", version: "1.0.0" }],
      provider: null,
      usage: { inputTokens: 0, outputTokens: 0, modelCalls: 0, toolCalls: 1 },
      costUsd: 0,
      failure: null,
    });
    expect(run.output).toMatchObject({ timezone: "Europe/Berlin", weekday: expect.any(String), utcOffset: expect.stringMatching(/^[+-]\d\d:\d\d$/) });
    expect(Math.abs(run.output.unixMs - Date.now())).toBeLessThan(60_000);
    const events = await journal(tenant, run.id);
    expect(types(events)).toEqual(["run-created", "invocation-started", "tool-call-started", "tool-call-completed", "run-completed"]);
    expect(events[0].data).toEqual({ invocation: { toolId: "current-time", version: "1.0.0", arguments: { timezone: "Europe/Berlin" } }, attended: true });
    expect(events[2].data).toMatchObject({ callId: "0.0", toolId: "current-time", version: "1.0.0", arguments: { timezone: "Europe/Berlin" }, idempotencyKey: `kindgi-run-${run.id}-call-0.0` });
    expect(events[4].data).toEqual({ output: run.output });
    expect((await call("GET", `/v1/runs/${run.id}`, { key: tenant.key })).body).toEqual(run);
    const listed = await call("GET", "/v1/runs?kind=tool-invocation&toolId=current-time", { key: tenant.key });
    expect(listed.body.data.map((item: any) => item.id)).toContain(run.id);
    expect((await call("GET", "/v1/runs?kind=agent-turn", { key: tenant.key })).body.data.map((item: any) => item.id)).not.toContain(run.id);
  });

  it("POST /v1/tools/{toolId}/invoke calls the latest active version", async () => {
    const builtin = await invoke(tenant, "current-time", null, { arguments: {} });
    expect(builtin.status).toBe(201);
    expect(builtin.body).toMatchObject({ tool: { id: "current-time", version: "1.0.0" }, status: "completed", output: { timezone: "UTC" } });

    const toolId = await registerTool(tenant, geocodeTool());
    await registerTool(tenant, { ...geocodeTool(), id: toolId, version: "1.1.0" });
    const latest = await invoke(tenant, toolId, null, { arguments: { address: { city: "Oslo" } } });
    expect(latest.body).toMatchObject({ status: "completed", tool: { id: toolId, version: "1.1.0" } });
    await call("POST", `/v1/tools/${toolId}/versions/1.1.0/unregister`, { key: tenant.key });
    expect((await invoke(tenant, toolId, null, { arguments: { address: { city: "Oslo" } } })).body.tool).toEqual({ id: toolId, version: "1.0.0" });
  });

  it("an HTTP tool: defaults filled before the call, the idempotency key sent, the JSON result as output", async () => {
    const toolId = await registerTool(tenant, geocodeTool());
    const before = server.requests.length;
    const response = await invoke(tenant, toolId, "1.0.0", { projectId: tenant.projectId, arguments: { address: { city: "Berlin" } } });
    expect(response.status).toBe(201);
    const run = response.body;
    expect(server.requests.length).toBe(before + 1);
    expect(JSON.parse(server.requests[before].body)).toEqual({ address: { city: "Berlin", country: "DE" }, units: "metric" });
    expect(run).toMatchObject({ status: "completed", input: { arguments: { address: { city: "Berlin", country: "DE" }, units: "metric" } } });
    expect(run.output).toEqual({ city: "Berlin", country: "DE", units: "metric", lat: 52.52, idempotencyKey: `kindgi-run-${run.id}-call-0.0` });
    const events = await journal(tenant, run.id);
    expect(types(events)).toEqual(["run-created", "invocation-started", "tool-call-started", "tool-call-completed", "run-completed"]);
    expect(events[2].data.arguments).toEqual({ address: { city: "Berlin", country: "DE" }, units: "metric" });
    expect(events[3].data).toMatchObject({ callId: "0.0", toolId, ok: true, output: run.output });
  });

  it("arguments off the input schema → 400 validation-failed with pointers into the body, and nothing is stored or called", async () => {
    const toolId = await registerTool(tenant, geocodeTool());
    const before = server.requests.length;
    const error = expectError(await invoke(tenant, toolId, "1.0.0", { arguments: { address: { city: "" }, units: "furlongs" } }), 400, "validation-failed");
    expect(error.details.issues).toEqual(expect.arrayContaining([
      { path: "/arguments/address/city", message: "must not be empty" },
      { path: "/arguments/units", message: "must be one of: metric, imperial" },
    ]));
    const missing = expectError(await invoke(tenant, toolId, "1.0.0", { arguments: { address: {}, extra: 1 } }), 400, "validation-failed");
    expect(missing.details.issues.map((issue: any) => issue.path).sort()).toEqual(["/arguments/address/city", "/arguments/extra"]);
    expectError(await invoke(tenant, toolId, "1.0.0", { arguments: "Berlin" }), 400, "bad-input");
    expectError(await invoke(tenant, toolId, "1.0.0", {}), 400, "bad-input");
    expectError(await invoke(tenant, toolId, "1.0.0", { arguments: {}, agent: "x" }), 400, "unknown-field");
    expect(server.requests.length).toBe(before);
    expect((await call("GET", `/v1/runs?toolId=${toolId}`, { key: tenant.key })).body.data).toEqual([]);
  });

  it("a result off the output schema fails the run (tool-invocation-failed); a denied host gives reason network-denied", async () => {
    const toolId = await registerTool(tenant, geocodeTool({}, { urlTemplate: `${server.origin}/bad-output` }));
    const response = await invoke(tenant, toolId, "1.0.0", { arguments: { address: { city: "Rome" } } });
    expect(response.status).toBe(201);
    const run = response.body;
    expect(run).toMatchObject({ kind: "tool-invocation", status: "failed", output: null, failure: { code: "tool-invocation-failed", details: { callId: "0.0", toolId, version: "1.0.0", kind: "tool-error" } } });
    expect(run.failure.message).toMatch(/output schema.*\/lat must be a number/);
    const events = await journal(tenant, run.id);
    expect(types(events)).toEqual(["run-created", "invocation-started", "tool-call-started", "tool-call-completed", "run-failed"]);
    expect(events[3].data).toMatchObject({ ok: false, error: { kind: "tool-error" } });
    expect((await call("GET", `/v1/runs/${run.id}`, { key: tenant.key })).body).toMatchObject({ status: "failed", failure: run.failure });

    const denied = await registerTool(tenant, geocodeTool({ network: { kind: "none" } }));
    const before = server.requests.length;
    const refused = (await invoke(tenant, denied, "1.0.0", { arguments: { address: { city: "Rome" } } })).body;
    expect(refused).toMatchObject({ status: "failed", failure: { code: "tool-invocation-failed", details: { kind: "tool-error", reason: "network-denied" } } });
    expect(server.requests.length).toBe(before);
  });

  it("the same Idempotency-Key replays the stored run without calling the tool again; another body → 409", async () => {
    const toolId = await registerTool(tenant, geocodeTool());
    const key = `invoke-${Date.now()}`;
    const before = server.requests.length;
    const body = { arguments: { address: { city: "Paris" } } };
    const first = await invoke(tenant, toolId, "1.0.0", body, { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    const replay = await invoke(tenant, toolId, "1.0.0", body, { "Idempotency-Key": key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect(server.requests.length).toBe(before + 1);
    expectError(await invoke(tenant, toolId, "1.0.0", { arguments: { address: { city: "Lyon" } } }, { "Idempotency-Key": key }), 409, "idempotency-key-body-mismatch");
    expect((await call("GET", `/v1/runs?toolId=${toolId}`, { key: tenant.key })).body.data).toHaveLength(1);
  });

  it("wait: false answers 202 while the call is still in flight; the run completes in the background and its stream ends with run-completed", async () => {
    const toolId = await registerTool(tenant, geocodeTool({}, { urlTemplate: `${server.origin}/held` }));
    held = new Promise<void>((resolve) => (releaseHeld = resolve));
    // The tool answers only once the test lets it: a server that waited for the run would never answer.
    const accepted = await invoke(tenant, toolId, "1.0.0", { arguments: { address: { city: "Madrid" } }, options: { wait: false } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ kind: "tool-invocation", status: "pending", tool: { id: toolId, version: "1.0.0" } });
    const inFlight = await waitForRun(tenant, accepted.body.id, (run) => run.status === "running");
    expect(inFlight.output).toBeNull();
    const stream = fetch(`${kindgi().baseUrl}/v1/runs/${accepted.body.id}/stream`, { headers: { Authorization: `Bearer ${tenant.key}` } }).then((response) => response.text());
    releaseHeld();
    const text = await stream;
    expect([...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1])).toEqual(["run-created", "invocation-started", "tool-call-started", "tool-call-completed", "run-completed"]);
    const done = await waitForRun(tenant, accepted.body.id);
    expect(done).toMatchObject({ status: "completed", output: { city: "Madrid", lat: 52.52 } });
  });

  it("tenancy and roles: viewer 403, another tenant's tool 404, a narrowed key only in its project, unregistered 409, unknown 404", async () => {
    const toolId = await registerTool(tenant, geocodeTool());
    const body = { arguments: { address: { city: "Vienna" } } };
    const viewer = await keyFor(tenant, { name: "v", serviceAccount: { name: "viewer", role: "viewer" } });
    expectError(await invoke({ key: viewer }, toolId, "1.0.0", body), 403, "permission-denied");
    expectError(await invoke({ key: viewer }, "current-time", "1.0.0", { arguments: {} }), 403, "permission-denied");

    const other = await newTenant("tool invoke other");
    expectError(await invoke(other, toolId, "1.0.0", body), 404, "not-found");
    expectError(await invoke(other, toolId, null, body), 404, "not-found");
    expectError(await invoke(other, "current-time", "1.0.0", { projectId: tenant.projectId, arguments: {} }), 400, "bad-input");

    const project = await call("POST", "/v1/projects", { key: tenant.key, body: { name: `Side ${Date.now()}` } });
    expect(project.status).toBe(201);
    const narrowed = await keyFor(tenant, { name: "side", projectId: project.body.id });
    expectError(await invoke({ key: narrowed }, toolId, "1.0.0", body), 404, "not-found");
    const inSide = await invoke({ key: narrowed }, "current-time", "1.0.0", { arguments: {} });
    expect(inSide.body).toMatchObject({ status: "completed", projectId: project.body.id });
    expectError(await invoke({ key: narrowed }, "current-time", "1.0.0", { projectId: tenant.projectId, arguments: {} }), 400, "bad-input");
    expectError(await invoke(tenant, toolId, "1.0.0", { ...body, projectId: project.body.id }), 409, "tool-project-mismatch");
    const service = await keyFor(tenant, { name: "bot", serviceAccount: { name: "bot" } });
    expect((await invoke({ key: service }, toolId, "1.0.0", body)).body).toMatchObject({ status: "completed", attended: false });

    expectError(await invoke(tenant, toolId, "9.9.9", body), 404, "not-found");
    expectError(await invoke(tenant, "current-time", "9.9.9", { arguments: {} }), 404, "not-found");
    expectError(await invoke(tenant, "test.no-such-tool", "1.0.0", body), 404, "not-found");
    expectError(await invoke(tenant, toolId, "1.0", body), 400, "bad-input");
    await call("POST", `/v1/tools/${toolId}/versions/1.0.0/unregister`, { key: tenant.key });
    expectError(await invoke(tenant, toolId, "1.0.0", body), 409, "tool-version-unregistered");
    expectError(await invoke(tenant, toolId, null, body), 409, "tool-version-unregistered");
    await call("POST", `/v1/tools/${toolId}/versions/1.0.0/reinstate`, { key: tenant.key });
    expect((await invoke(tenant, toolId, "1.0.0", body)).body.status).toBe("completed");
  });
});
