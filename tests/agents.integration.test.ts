import { describe, expect, it } from "vitest";
import { pickToolVersion } from "@/lib/services/agent-resolution";
import { call, expectError, newTenant, toolManifest, type TestTenant } from "./helpers/api";

let counter = 0;
/** A unique, valid agent definition (chat-only, no parameters) for tests. */
function agentDefinition(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    id: `test.agent-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}`,
    version: "1.0.0",
    name: "Test agent",
    description: "Answers questions about a test dictionary.",
    instructions: "You are {{ agent.name }}. Today is {{ today }}.",
    capabilities: [{}],
    tools: [],
    retrieval: [],
    guardrails: [],
    ...overrides,
  };
}

/** An agent whose instructions use every kind of parameter, a condition, a loop and filters. */
function renderableAgent() {
  return agentDefinition({
    name: "Brief Bot",
    instructions: [
      "Hello {{ client | upcase }}, I am {{ agent.name }} ({{ agent.id }}@{{ agent.version }}) on {{ today }}.",
      "{% if strict %}Be strict.{% else %}Be lenient.{% endif %}",
      "{% for i in (1..maxItems) %}[{{ i }}]{% endfor %}",
      'Deadline {{ deadline | date: "%d/%m/%Y" }}. Turn {{ conversation.turn }} of {{ conversation.id | default: "none" }}.{% if note %} Note: {{ note | strip }}{% endif %}',
    ].join("\n"),
    parameters: [
      { name: "client", type: "string", description: "Client name" },
      { name: "maxItems", type: "number", default: 3 },
      { name: "strict", type: "boolean", default: false },
      { name: "deadline", type: "date" },
      { name: "note", type: "string", required: false },
    ],
  });
}

const register = (tenant: TestTenant, definition: Record<string, unknown>, projectId = tenant.projectId) => call("POST", "/v1/agents", { key: tenant.key, body: { ...definition, projectId } });

async function registerTool(tenant: TestTenant, id: string, versions: string[], projectId = tenant.projectId) {
  for (const version of versions) {
    const response = await call("POST", "/v1/tools", { key: tenant.key, body: { ...toolManifest({ id, version }), projectId } });
    if (response.status !== 201) throw new Error(`tool registration failed: ${response.text}`);
  }
}

const paths = (list: Array<{ path: string }>) => list.map((item) => item.path);

describe("agent registry", () => {
  it("registers a definition (201 {agentId, version, warnings}) and reads it back exactly as registered", async () => {
    const tenant = await newTenant();
    const definition = agentDefinition({ tags: ["support"], budget: { maxWallMs: 5000, maxSteps: 3 }, conversationPolicy: { historyLimit: 5 }, parallelToolCalls: false });
    const created = await register(tenant, definition);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ agentId: definition.id, version: "1.0.0", warnings: [] });
    const version = await call("GET", `/v1/agents/${definition.id}/versions/1.0.0`, { key: tenant.key });
    expect(version.status).toBe(200);
    expect(version.body).toMatchObject({ agentId: definition.id, version: "1.0.0", projectId: tenant.projectId, status: "active", isLatest: true, registeredBy: tenant.adminUserId, statusChangedAt: null });
    expect(version.body.definition).toEqual(definition);
    expect(version.text).toContain(JSON.stringify(definition));
    expect(version.headers.get("cache-control")).toBe("no-store");
  });

  it("warns at /tools/<i>/version for ranges that resolve to nothing today, and accepts them", async () => {
    const tenant = await newTenant();
    const toolId = `t.lookup-${Date.now().toString(36)}`;
    await registerTool(tenant, toolId, ["1.0.0", "1.4.0"]);
    const definition = agentDefinition({ tools: [{ id: toolId, version: "^1.0.0" }, { id: "t.absent", version: "1.0.0" }, { id: `${toolId}-other`, version: "^2.0.0" }] });
    const created = await register(tenant, definition);
    expect(created.status).toBe(201);
    expect(paths(created.body.warnings)).toEqual(["/tools/1/version", "/tools/2/version"]);
    expect(created.body.warnings[0].message).toContain("t.absent");
    // A range that misses the versions that exist names them.
    const second = await register(tenant, agentDefinition({ tools: [{ id: toolId, version: "^2.0.0" }] }));
    expect(second.body.warnings).toEqual([{ path: "/tools/0/version", message: expect.stringContaining("active versions: 1.4.0, 1.0.0") }]);
  });

  it("answers 409 agent-already-registered for the same id and version", async () => {
    const tenant = await newTenant();
    const definition = agentDefinition();
    expect((await register(tenant, definition)).status).toBe(201);
    const again = expectError(await register(tenant, { ...definition, name: "Changed" }), 409, "agent-already-registered");
    expect(again.details).toEqual({ agentId: definition.id, version: "1.0.0" });
    expect((await register(tenant, { ...definition, version: "1.0.1" })).status).toBe(201);
  });

  it("answers 409 agent-project-mismatch when the id lives in another project", async () => {
    const tenant = await newTenant();
    const project = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Second" } });
    const definition = agentDefinition();
    await register(tenant, definition);
    const error = expectError(await register(tenant, { ...definition, version: "2.0.0" }, project.body.id), 409, "agent-project-mismatch");
    expect(error.details).toEqual({ agentId: definition.id });
    // The same id in another tenant is another agent.
    const other = await newTenant();
    expect((await register(other, definition)).status).toBe(201);
  });

  it("answers 400 bad-input for bad JSON and a missing, malformed or foreign projectId", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const definition = agentDefinition();
    expectError(await call("POST", "/v1/agents", { key: tenant.key, rawBody: '{"id": "x",', headers: { "Content-Type": "application/json" } }), 400, "bad-input");
    expectError(await call("POST", "/v1/agents", { key: tenant.key, body: [definition] }), 400, "bad-input");
    expectError(await call("POST", "/v1/agents", { key: tenant.key, rawBody: "" }), 400, "bad-input");
    for (const projectId of [undefined, "nope", 42, other.projectId, "00000000-0000-4000-8000-000000000000"]) {
      const error = expectError(await call("POST", "/v1/agents", { key: tenant.key, body: { ...definition, projectId } }), 400, "bad-input");
      expect(error.details.issues[0].path).toBe("/projectId");
    }
    expectError(await call("GET", `/v1/agents/${definition.id}`, { key: tenant.key }), 404, "not-found");
  });

  it("answers 400 validation-failed with every issue and its JSON pointer; unknown top-level fields are 400 unknown-field", async () => {
    const tenant = await newTenant();
    const response = await register(tenant, {
      ...agentDefinition({ version: "1.0", tools: ["acme.bare-id"], parameters: [{ name: "now", type: "string" }], retrieval: [{ types: ["note"], scope: "galaxy" }] }),
      name: undefined,
    });
    const error = expectError(response, 400, "validation-failed");
    expect(paths(error.details.issues)).toEqual(expect.arrayContaining(["/version", "/tools/0", "/parameters/0/name", "/retrieval/0/scope", "/name"]));
    expect(error.details.issues.find((issue: { path: string }) => issue.path === "/tools/0").message).toContain("bare string ids are not accepted");
    const unknown = expectError(await register(tenant, { ...agentDefinition(), handler: "x" }), 400, "unknown-field");
    expect(unknown.details.issues).toEqual([{ path: "/handler", message: 'unknown field "handler"' }]);
    // Nested unknown fields are validation issues of the definition.
    const nested = expectError(await register(tenant, agentDefinition({ budget: { maxTokens: 5 } })), 400, "validation-failed");
    expect(paths(nested.details.issues)).toEqual(["/budget/maxTokens"]);
  });

  it("instructions past the template parse limit (1,000,000 characters) are 400 validation-failed at /instructions", async () => {
    const tenant = await newTenant();
    const error = expectError(await register(tenant, agentDefinition({ instructions: "x".repeat(1_000_001) })), 400, "validation-failed");
    expect(error.details.issues).toEqual([{ path: "/instructions", message: "line 1, column 1: parse length limit exceeded" }]);
  });

  it("a missing or foreign projectId is 400 bad-input even when the definition has other problems, reported together", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const broken = agentDefinition({ version: "01.0.0", retrieval: [{ types: ["note"], scope: "same-project", limit: 500 }] });
    for (const [projectId, message] of [
      [undefined, "projectId is required"],
      [other.projectId, "projectId is not a project of the caller's tenant"],
    ] as const) {
      const error = expectError(await call("POST", "/v1/agents", { key: tenant.key, body: { ...broken, projectId } }), 400, "bad-input");
      expect(error.details.issues).toEqual([{ path: "/projectId", message }, { path: "/version", message: expect.any(String) }, { path: "/retrieval/0/limit", message: "must be at most 100" }]);
    }
    const invalid = expectError(await register(tenant, broken), 400, "validation-failed");
    expect(paths(invalid.details.issues)).toEqual(["/version", "/retrieval/0/limit"]);
    expect((await call("GET", `/v1/agents/${broken.id}`, { key: tenant.key })).status).toBe(404);
  });

  it("ids that register are reachable: the id follows the {agentId} grammar; versions are semver without leading zeros", async () => {
    const tenant = await newTenant();
    const stamp = Date.now().toString(36);
    for (const id of [`${stamp}.`.padEnd(200, "a"), `${stamp}.`.padEnd(200, "é"), `acme/odd agent %.${stamp}`]) {
      expect((await register(tenant, agentDefinition({ id }))).status).toBe(201);
      const read = await call("GET", `/v1/agents/${encodeURIComponent(id)}/versions/1.0.0`, { key: tenant.key });
      expect(read.status, read.text.slice(0, 200)).toBe(200);
      expect(read.body.agentId).toBe(id);
    }
    expect(expectError(await register(tenant, agentDefinition({ id: `${stamp}.`.padEnd(201, "a") })), 400, "validation-failed").details.issues).toEqual([{ path: "/id", message: "must be at most 200 characters long" }]);
    for (const id of [`acme\tagent.${stamp}`, `acme.agent\r${stamp}`]) {
      expect(expectError(await register(tenant, agentDefinition({ id })), 400, "validation-failed").details.issues).toEqual([{ path: "/id", message: "must not contain control characters (U+0000–U+001F)" }]);
    }
    const definition = agentDefinition();
    expect((await register(tenant, definition)).status).toBe(201);
    for (const version of ["01.0.0", "1.0.01", "2.0.0-01"]) {
      const refused = expectError(await register(tenant, { ...definition, version }), 400, "validation-failed");
      expect(paths(refused.details.issues)).toEqual(["/version"]);
    }
    // A long build tag within 200 characters registers and is readable; a longer one is refused.
    const long = `1.1.0+${"b".repeat(194)}`;
    expect((await register(tenant, { ...definition, version: long })).status).toBe(201);
    expect((await call("GET", `/v1/agents/${definition.id}/versions/${encodeURIComponent(long)}`, { key: tenant.key })).status).toBe(200);
    expect(paths(expectError(await register(tenant, { ...definition, version: `${long}b` }), 400, "validation-failed").details.issues)).toEqual(["/version"]);
    const agent = await call("GET", `/v1/agents/${definition.id}`, { key: tenant.key });
    expect(agent.status).toBe(200);
    expect(agent.body.versions.map((v: { version: string }) => v.version)).toEqual([long, "1.0.0"]);
  });

  it("refuses a retrieval limit above 100 instead of capping it", async () => {
    const tenant = await newTenant();
    const refused = expectError(await register(tenant, agentDefinition({ retrieval: [{ types: ["note"], scope: "same-project", limit: 101 }] })), 400, "validation-failed");
    expect(refused.details.issues).toEqual([{ path: "/retrieval/0/limit", message: "must be at most 100" }]);
    expect((await register(tenant, agentDefinition({ retrieval: [{ types: ["note"], scope: "same-project", limit: 100 }] }))).status).toBe(201);
  });

  it("401 without a key; 403 for a viewer on writes, reads allowed", async () => {
    expectError(await call("POST", "/v1/agents", { body: agentDefinition() }), 401, "auth-missing");
    expectError(await call("GET", "/v1/agents"), 401, "auth-missing");
    const tenant = await newTenant();
    const definition = agentDefinition();
    await register(tenant, definition);
    const viewer = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "v", serviceAccount: { name: "viewer", role: "viewer" } } });
    expectError(await register({ ...tenant, key: viewer.body.key }, agentDefinition()), 403, "permission-denied");
    expectError(await call("POST", `/v1/agents/${definition.id}/versions/1.0.0/unregister`, { key: viewer.body.key }), 403, "permission-denied");
    expect((await call("GET", `/v1/agents/${definition.id}`, { key: viewer.body.key })).status).toBe(200);
    expect((await call("POST", `/v1/agents/${definition.id}/versions/1.0.0/render`, { key: viewer.body.key })).status).toBe(200);
    expect((await call("POST", "/v1/agents/validate", { key: viewer.body.key, body: agentDefinition() })).body.valid).toBe(true);
  });

  it("replays an idempotent registration byte for byte", async () => {
    const tenant = await newTenant();
    const definition = agentDefinition();
    const headers = { "Idempotency-Key": `agent-${definition.id}` };
    const first = await call("POST", "/v1/agents", { key: tenant.key, headers, body: { ...definition, projectId: tenant.projectId } });
    const second = await call("POST", "/v1/agents", { key: tenant.key, headers, body: { ...definition, projectId: tenant.projectId } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("x-idempotent-replay")).toBe("true");
    expectError(await call("POST", "/v1/agents", { key: tenant.key, headers, body: { ...definition, name: "Other", projectId: tenant.projectId } }), 409, "idempotency-key-body-mismatch");
  });

  it("gets an agent with its latest active version; unregister hides and reinstate restores", async () => {
    const tenant = await newTenant();
    const base = agentDefinition();
    for (const version of ["1.2.0", "1.10.0", "1.9.3"]) expect((await register(tenant, { ...base, version, description: `v${version}` })).status).toBe(201);
    const agent = await call("GET", `/v1/agents/${base.id}`, { key: tenant.key });
    expect(agent.body).toMatchObject({ agentId: base.id, projectId: tenant.projectId, latestVersion: "1.10.0" });
    expect(agent.body.latest.definition.description).toBe("v1.10.0");
    expect(agent.body.versions.map((v: { version: string }) => v.version)).toEqual(["1.10.0", "1.9.3", "1.2.0"]);

    const unregistered = await call("POST", `/v1/agents/${base.id}/versions/1.10.0/unregister`, { key: tenant.key });
    expect(unregistered.body).toMatchObject({ status: "unregistered", isLatest: false });
    expect(unregistered.body.statusChangedAt).toEqual(expect.any(String));
    expect((await call("GET", `/v1/agents/${base.id}`, { key: tenant.key })).body.latestVersion).toBe("1.9.3");
    expect((await call("GET", `/v1/agents?q=${base.id}`, { key: tenant.key })).body.data[0].latestVersion).toBe("1.9.3");
    expect((await call("GET", `/v1/agents/${base.id}/versions/1.10.0`, { key: tenant.key })).body.status).toBe("unregistered");
    expect((await call("POST", `/v1/agents/${base.id}/versions/1.10.0/unregister`, { key: tenant.key })).body.status).toBe("unregistered");
    expect((await call("POST", `/v1/agents/${base.id}/versions/1.10.0/reinstate`, { key: tenant.key })).body).toMatchObject({ status: "active", isLatest: true });
    expect((await call("GET", `/v1/agents/${base.id}`, { key: tenant.key })).body.latestVersion).toBe("1.10.0");

    for (const version of ["1.10.0", "1.9.3", "1.2.0"]) await call("POST", `/v1/agents/${base.id}/versions/${version}/unregister`, { key: tenant.key });
    expect((await call("GET", `/v1/agents/${base.id}`, { key: tenant.key })).body).toMatchObject({ latestVersion: null, latest: null });
    expect((await call("GET", `/v1/agents?q=${base.id}`, { key: tenant.key })).body.data).toHaveLength(0);
    expectError(await call("POST", `/v1/agents/${base.id}/versions/9.9.9/reinstate`, { key: tenant.key }), 404, "not-found");
    expectError(await call("GET", `/v1/agents/${base.id}/versions/9.9.9`, { key: tenant.key }), 404, "not-found");
  });

  it("addresses prerelease and build versions; a malformed version is 400 bad-input", async () => {
    const tenant = await newTenant();
    const base = agentDefinition();
    for (const version of ["2.0.0-beta.1", "2.0.0-beta.2+build.7", "1.0.0"]) expect((await register(tenant, { ...base, version })).status).toBe(201);
    expect((await call("GET", `/v1/agents/${base.id}/versions/2.0.0-beta.1`, { key: tenant.key })).body.definition.version).toBe("2.0.0-beta.1");
    expect((await call("GET", `/v1/agents/${base.id}/versions/${encodeURIComponent("2.0.0-beta.2+build.7")}`, { key: tenant.key })).status).toBe(200);
    expect((await call("GET", `/v1/agents/${base.id}/versions`, { key: tenant.key })).body.data.map((v: { version: string }) => v.version)).toEqual(["2.0.0-beta.2+build.7", "2.0.0-beta.1", "1.0.0"]);
    for (const bad of ["1.0", "latest", "01.0.0"]) {
      const error = expectError(await call("GET", `/v1/agents/${base.id}/versions/${bad}`, { key: tenant.key }), 400, "bad-input");
      expect(error.details.issues[0].path).toBe("/version");
    }
    expectError(await call("POST", `/v1/agents/${base.id}/versions/x/render`, { key: tenant.key }), 400, "bad-input");
  });

  it("lists versions newest first, paginated", async () => {
    const tenant = await newTenant();
    const base = agentDefinition();
    for (const version of ["0.1.0", "0.2.0", "0.3.0", "1.0.0", "2.0.0"]) await register(tenant, { ...base, version });
    const first = await call("GET", `/v1/agents/${base.id}/versions?limit=2`, { key: tenant.key });
    expect(first.body.data.map((v: { version: string }) => v.version)).toEqual(["2.0.0", "1.0.0"]);
    expect(first.body.hasMore).toBe(true);
    const second = await call("GET", `/v1/agents/${base.id}/versions?limit=2&cursor=${first.body.nextCursor}`, { key: tenant.key });
    expect(second.body.data.map((v: { version: string }) => v.version)).toEqual(["0.3.0", "0.2.0"]);
    const third = await call("GET", `/v1/agents/${base.id}/versions?limit=2&cursor=${second.body.nextCursor}`, { key: tenant.key });
    expect(third.body).toEqual({ data: [expect.objectContaining({ version: "0.1.0" })], hasMore: false });
    expectError(await call("GET", `/v1/agents/${base.id}/versions?cursor=garbage`, { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", `/v1/agents/${base.id}/versions?cursor=${Buffer.from('["x"]').toString("base64url")}`, { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", `/v1/agents/${base.id}/versions?limit=0`, { key: tenant.key }), 400, "bad-input");
  });

  it("filters the list by project, q (id, name, description, tags) and tag; paginates by id", async () => {
    const tenant = await newTenant();
    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Ops" } });
    await register(tenant, agentDefinition({ id: "f.researcher", name: "Researcher", description: "Finds sources", tags: ["research", "web"] }));
    await register(tenant, agentDefinition({ id: "f.writer", name: "Ghost Writer", description: "Drafts letters", tags: ["writing"] }));
    await register(tenant, agentDefinition({ id: "f.triage", name: "Triage", description: "Sorts tickets", tags: ["support", "research"] }), second.body.id);
    const ids = async (query: string) => (await call("GET", `/v1/agents?${query}`, { key: tenant.key })).body.data.map((agent: { agentId: string }) => agent.agentId);
    expect(await ids("")).toEqual(["f.researcher", "f.triage", "f.writer"]);
    expect(await ids(`projectId=${second.body.id}`)).toEqual(["f.triage"]);
    expect(await ids(`projectId=${tenant.projectId}`)).toEqual(["f.researcher", "f.writer"]);
    expect(await ids("q=GHOST")).toEqual(["f.writer"]);
    expect(await ids("q=tickets")).toEqual(["f.triage"]);
    expect(await ids("q=f.res")).toEqual(["f.researcher"]);
    expect(await ids("q=web")).toEqual(["f.researcher"]);
    expect(await ids("tag=research")).toEqual(["f.researcher", "f.triage"]);
    expect(await ids(`tag=research&projectId=${second.body.id}`)).toEqual(["f.triage"]);
    expect(await ids("tag=resea")).toEqual([]);
    expect(await ids("q=nothing-matches")).toEqual([]);
    const summary = (await call("GET", "/v1/agents?q=f.writer", { key: tenant.key })).body.data[0];
    expect(summary).toEqual({ agentId: "f.writer", projectId: tenant.projectId, latestVersion: "1.0.0", name: "Ghost Writer", description: "Drafts letters", tags: ["writing"], registeredAt: expect.any(String) });

    const page1 = await call("GET", "/v1/agents?limit=2", { key: tenant.key });
    expect(page1.body.data.map((a: { agentId: string }) => a.agentId)).toEqual(["f.researcher", "f.triage"]);
    expect(page1.body.hasMore).toBe(true);
    const page2 = await call("GET", `/v1/agents?limit=2&cursor=${page1.body.nextCursor}`, { key: tenant.key });
    expect(page2.body).toEqual({ data: [expect.objectContaining({ agentId: "f.writer" })], hasMore: false });
    expectError(await call("GET", "/v1/agents?projectId=nope", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/agents?effect=reads", { key: tenant.key }), 400, "unknown-field");
  });

  it("a key narrowed to a project does not see other projects' agents", async () => {
    const tenant = await newTenant();
    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Hidden" } });
    const hidden = agentDefinition();
    await register(tenant, hidden, second.body.id);
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "n", projectId: tenant.projectId } });
    expectError(await call("GET", `/v1/agents/${hidden.id}`, { key: narrowed.body.key }), 404, "not-found");
    expectError(await call("GET", `/v1/agents/${hidden.id}/versions/1.0.0/form`, { key: narrowed.body.key }), 404, "not-found");
    expect((await call("GET", "/v1/agents", { key: narrowed.body.key })).body.data).toEqual([]);
    expect((await call("GET", `/v1/agents?projectId=${second.body.id}`, { key: narrowed.body.key })).body.data).toEqual([]);
  });

  it("another tenant's agents are 404 on every route", async () => {
    const owner = await newTenant();
    const stranger = await newTenant();
    const definition = agentDefinition();
    await register(owner, definition);
    const id = definition.id;
    for (const [method, path] of [
      ["GET", `/v1/agents/${id}`],
      ["GET", `/v1/agents/${id}/versions`],
      ["GET", `/v1/agents/${id}/versions/1.0.0`],
      ["POST", `/v1/agents/${id}/versions/1.0.0/unregister`],
      ["POST", `/v1/agents/${id}/versions/1.0.0/reinstate`],
      ["GET", `/v1/agents/${id}/versions/1.0.0/resolution`],
      ["POST", `/v1/agents/${id}/versions/1.0.0/render`],
      ["GET", `/v1/agents/${id}/versions/1.0.0/form`],
    ]) expectError(await call(method, path, { key: stranger.key }), 404, "not-found");
    expect((await call("GET", "/v1/agents", { key: stranger.key })).body.data).toEqual([]);
    expect((await call("GET", `/v1/agents?projectId=${owner.projectId}`, { key: stranger.key })).body.data).toEqual([]);
    expectError(await register(stranger, agentDefinition(), owner.projectId), 400, "bad-input");
    expectError(await call("POST", "/v1/agents/validate", { key: stranger.key, body: { ...agentDefinition(), projectId: owner.projectId } }), 400, "bad-input");
    // The stranger's own agent with the same id is a different agent; the owner's stays untouched.
    expect((await register(stranger, definition)).status).toBe(201);
    expect((await call("GET", `/v1/agents/${id}/versions/1.0.0`, { key: owner.key })).body).toMatchObject({ status: "active", projectId: owner.projectId });
  });
});

describe("tool resolution", () => {
  it("resolves each range to the highest active satisfying version; unregistering a version changes the answer", async () => {
    const tenant = await newTenant();
    const stamp = Date.now().toString(36);
    const versions = ["1.2.0", "1.2.5", "1.3.0", "1.10.0", "2.0.0"];
    const ids = ["caret", "tilde", "between", "exact", "none", "x"].map((name) => `r${stamp}.${name}`);
    for (const id of ids.slice(0, 5)) await registerTool(tenant, id, versions);
    await registerTool(tenant, ids[5], ["0.9.0", "1.0.0"]);
    const tools = [
      { id: ids[0], version: "^1.2.0" },
      { id: ids[1], version: "~1.2.3" },
      { id: ids[2], version: ">=1.0.0 <2.0.0" },
      { id: ids[3], version: "1.3.0" },
      { id: ids[4], version: "^3.0.0" },
      { id: ids[5], version: "1.x" },
    ];
    const definition = agentDefinition({ tools });
    const created = await register(tenant, definition);
    expect(paths(created.body.warnings)).toEqual(["/tools/4/version"]);
    const url = `/v1/agents/${definition.id}/versions/1.0.0/resolution`;
    const first = await call("GET", url, { key: tenant.key });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      agentId: definition.id,
      version: "1.0.0",
      projectId: tenant.projectId,
      resolved: [
        { id: ids[0], range: "^1.2.0", version: "1.10.0" },
        { id: ids[1], range: "~1.2.3", version: "1.2.5" },
        { id: ids[2], range: ">=1.0.0 <2.0.0", version: "1.10.0" },
        { id: ids[3], range: "1.3.0", version: "1.3.0" },
        { id: ids[5], range: "1.x", version: "1.0.0" },
      ],
      unresolved: [{ id: ids[4], range: "^3.0.0", available: ["2.0.0", "1.10.0", "1.3.0", "1.2.5", "1.2.0"] }],
    });

    for (const [id, version] of [[ids[0], "1.10.0"], [ids[1], "1.2.5"], [ids[2], "1.10.0"], [ids[3], "1.3.0"]]) {
      expect((await call("POST", `/v1/tools/${id}/versions/${version}/unregister`, { key: tenant.key })).status).toBe(200);
    }
    const second = await call("GET", url, { key: tenant.key });
    expect(second.body.resolved).toEqual([
      { id: ids[0], range: "^1.2.0", version: "1.3.0" },
      { id: ids[2], range: ">=1.0.0 <2.0.0", version: "1.3.0" },
      { id: ids[5], range: "1.x", version: "1.0.0" },
    ]);
    expect(second.body.unresolved).toEqual([
      { id: ids[1], range: "~1.2.3", available: ["2.0.0", "1.10.0", "1.3.0", "1.2.0"] },
      { id: ids[3], range: "1.3.0", available: ["2.0.0", "1.10.0", "1.2.5", "1.2.0"] },
      { id: ids[4], range: "^3.0.0", available: ["2.0.0", "1.10.0", "1.3.0", "1.2.5", "1.2.0"] },
    ]);
    // Reinstating brings the answer back.
    await call("POST", `/v1/tools/${ids[0]}/versions/1.10.0/reinstate`, { key: tenant.key });
    expect((await call("GET", url, { key: tenant.key })).body.resolved[0]).toEqual({ id: ids[0], range: "^1.2.0", version: "1.10.0" });
  });

  it("applies npm's prerelease rules: a release satisfies a prerelease range; a prerelease-only range matches no release", async () => {
    const tenant = await newTenant();
    const id = `pre${Date.now().toString(36)}.tool`;
    await registerTool(tenant, id, ["1.0.0", "1.2.0", "2.0.0"]);
    const definition = agentDefinition({ tools: [{ id, version: "^1.0.0-beta.1" }] });
    await register(tenant, definition);
    expect((await call("GET", `/v1/agents/${definition.id}/versions/1.0.0/resolution`, { key: tenant.key })).body.resolved).toEqual([{ id, range: "^1.0.0-beta.1", version: "1.2.0" }]);
    const prereleaseOnly = agentDefinition({ tools: [{ id, version: ">=2.0.0-rc.1 <2.0.0" }] });
    expect((await register(tenant, prereleaseOnly)).body.warnings).toEqual([{ path: "/tools/0/version", message: expect.stringContaining("2.0.0, 1.2.0, 1.0.0") }]);
  });

  it("pickToolVersion follows npm semver for prerelease versions", () => {
    const versions = ["1.2.0", "1.3.0-beta.1", "1.3.0-beta.2", "1.3.0", "1.4.0-alpha.1"];
    expect(pickToolVersion("^1.2.0", versions)).toBe("1.3.0"); // prereleases excluded from a release range
    expect(pickToolVersion("^1.3.0-beta.1", versions)).toBe("1.3.0"); // release of the same tuple and later
    expect(pickToolVersion("~1.3.0-beta.1", ["1.3.0-beta.1", "1.3.0-beta.2"])).toBe("1.3.0-beta.2"); // same tuple prereleases
    expect(pickToolVersion("^1.3.0-beta.1", ["1.3.0-beta.1", "1.4.0-alpha.1"])).toBe("1.3.0-beta.1"); // not another tuple's prerelease
    expect(pickToolVersion("1.3.0-beta.2", versions)).toBe("1.3.0-beta.2");
    expect(pickToolVersion("^2.0.0", versions)).toBeNull();
    expect(pickToolVersion("not a range", versions)).toBeNull();
  });

  it("resolves only in the agent's own project and tenant", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Tools elsewhere" } });
    const stamp = Date.now().toString(36);
    await registerTool(tenant, `p${stamp}.here`, ["1.0.0"]);
    await registerTool(tenant, `p${stamp}.elsewhere`, ["1.0.0"], second.body.id);
    await registerTool(other, `p${stamp}.foreign`, ["1.0.0"]);
    const definition = agentDefinition({ tools: ["here", "elsewhere", "foreign"].map((name) => ({ id: `p${stamp}.${name}`, version: "^1.0.0" })) });
    expect(paths((await register(tenant, definition)).body.warnings)).toEqual(["/tools/1/version", "/tools/2/version"]);
    const resolution = (await call("GET", `/v1/agents/${definition.id}/versions/1.0.0/resolution`, { key: tenant.key })).body;
    expect(resolution.resolved).toEqual([{ id: `p${stamp}.here`, range: "^1.0.0", version: "1.0.0" }]);
    expect(resolution.unresolved.map((item: { id: string; available: string[] }) => [item.id, item.available])).toEqual([
      [`p${stamp}.elsewhere`, []],
      [`p${stamp}.foreign`, []],
    ]);
  });
});

describe("render preview", () => {
  const today = () => new Date().toISOString().slice(0, 10);

  it("renders with defaults applied, {% if %}, {% for %}, filters and the auto-vars", async () => {
    const tenant = await newTenant();
    const definition = renderableAgent();
    expect((await register(tenant, definition)).status).toBe(201);
    const url = `/v1/agents/${definition.id}/versions/1.0.0/render`;
    const before = today();
    const response = await call("POST", url, { key: tenant.key, body: { parameters: { client: "acme", deadline: "2025-03-04" } } });
    expect(response.status).toBe(200);
    expect(response.body.parameters).toEqual({ client: "acme", maxItems: 3, strict: false, deadline: "2025-03-04", note: null });
    const lines = response.body.rendered.split("\n");
    expect([`Hello ACME, I am Brief Bot (${definition.id}@1.0.0) on ${before}.`, `Hello ACME, I am Brief Bot (${definition.id}@1.0.0) on ${today()}.`]).toContain(lines[0]);
    expect(lines.slice(1)).toEqual(["Be lenient.", "[1][2][3]", "Deadline 04/03/2025. Turn 1 of none."]);

    const full = await call("POST", url, {
      key: tenant.key,
      body: { parameters: { client: "Bob", deadline: "2025-12-31T23:00:00Z", strict: true, maxItems: 2, note: "  careful  " }, conversation: { id: "conv-1", turn: 4 } },
    });
    expect(full.status).toBe(200);
    expect(full.body.rendered.split("\n").slice(1)).toEqual(["Be strict.", "[1][2]", "Deadline 31/12/2025. Turn 4 of conv-1. Note: careful"]);
  });

  it("answers 400 validation-failed naming each missing, mistyped and unknown parameter", async () => {
    const tenant = await newTenant();
    const definition = renderableAgent();
    await register(tenant, definition);
    const url = `/v1/agents/${definition.id}/versions/1.0.0/render`;
    const missing = expectError(await call("POST", url, { key: tenant.key }), 400, "validation-failed");
    expect(missing.details.issues).toEqual([
      { path: "/parameters/client", message: "missing required parameter" },
      { path: "/parameters/deadline", message: "missing required parameter" },
    ]);
    const wrong = expectError(await call("POST", url, { key: tenant.key, body: { parameters: { client: 5, maxItems: "3", strict: "yes", deadline: "2024-02-30", extra: 1 } } }), 400, "validation-failed");
    expect(wrong.details.issues).toEqual([
      { path: "/parameters/client", message: "must be a string" },
      { path: "/parameters/maxItems", message: "must be a finite number" },
      { path: "/parameters/strict", message: "must be a boolean (true or false)" },
      { path: "/parameters/deadline", message: "must be a date (YYYY-MM-DD)" },
      { path: "/parameters/extra", message: expect.stringContaining('unknown parameter "extra"') },
    ]);
    for (const deadline of ["04/03/2025", "2025-3-4", "2025-03-04T10:00:00", 20250304]) {
      const error = expectError(await call("POST", url, { key: tenant.key, body: { parameters: { client: "a", deadline } } }), 400, "validation-failed");
      expect(error.details.issues).toEqual([{ path: "/parameters/deadline", message: "must be a date (YYYY-MM-DD)" }]);
    }
    // The request's own shape is checked first: bad-input / unknown-field.
    expectError(await call("POST", url, { key: tenant.key, body: { parameters: [] } }), 400, "bad-input");
    expectError(await call("POST", url, { key: tenant.key, body: { parameters: {}, conversation: { turn: 0 } } }), 400, "bad-input");
    expectError(await call("POST", url, { key: tenant.key, body: { params: {} } }), 400, "unknown-field");
    expectError(await call("POST", `/v1/agents/${definition.id}/versions/1.0.1/render`, { key: tenant.key, body: {} }), 404, "not-found");
  });

  it("renders an agent without parameters from an empty body", async () => {
    const tenant = await newTenant();
    const definition = agentDefinition({ name: "Plain" });
    await register(tenant, definition);
    const response = await call("POST", `/v1/agents/${definition.id}/versions/1.0.0/render`, { key: tenant.key });
    expect(response.body).toEqual({ rendered: expect.stringMatching(/^You are Plain\. Today is \d{4}-\d{2}-\d{2}\.$/), parameters: {} });
  });
});

describe("parameter form", () => {
  it("describes one field per declared parameter", async () => {
    const tenant = await newTenant();
    const definition = renderableAgent();
    await register(tenant, definition);
    const form = await call("GET", `/v1/agents/${definition.id}/versions/1.0.0/form`, { key: tenant.key });
    expect(form.status).toBe(200);
    expect(form.body.fields).toEqual([
      { name: "client", label: "Client", type: "string", kind: "text", inputMode: "text", required: true, description: "Client name" },
      { name: "maxItems", label: "Max items", type: "number", kind: "number", inputMode: "decimal", required: true, default: 3 },
      { name: "strict", label: "Strict", type: "boolean", kind: "checkbox", required: true, default: false },
      { name: "deadline", label: "Deadline", type: "date", kind: "date", placeholder: "YYYY-MM-DD", required: true },
      { name: "note", label: "Note", type: "string", kind: "text", inputMode: "text", required: false },
    ]);
    const plain = agentDefinition();
    await register(tenant, plain);
    expect((await call("GET", `/v1/agents/${plain.id}/versions/1.0.0/form`, { key: tenant.key })).body).toEqual({ fields: [] });
  });
});

describe("POST /v1/agents/validate", () => {
  const validate = (tenant: TestTenant, body: Record<string, unknown>) => call("POST", "/v1/agents/validate", { key: tenant.key, body });

  it("answers valid: true with the resolution and routing of a good definition, registering nothing", async () => {
    const tenant = await newTenant();
    const toolId = `v${Date.now().toString(36)}.tool`;
    await registerTool(tenant, toolId, ["1.0.0", "1.1.0"]);
    const definition = agentDefinition({ tools: [{ id: toolId, version: "^1.0.0" }] });
    const response = await validate(tenant, definition);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      valid: true,
      issues: [],
      warnings: [],
      resolution: [{ index: 0, id: toolId, range: "^1.0.0", version: "1.1.0", available: ["1.1.0", "1.0.0"] }],
      routing: { providerId: "dev-echo", model: "dev-echo", reason: expect.stringContaining("fallback") },
      embeddingRouting: { providerId: "dev-embed", model: "dev-embed", reason: expect.stringContaining("fallback") },
    });
    expectError(await call("GET", `/v1/agents/${definition.id}`, { key: tenant.key }), 404, "not-found");
    // preferredProvider "scripted" is honoured (the test server has KINDGI_DEV_PROVIDERS=1).
    expect((await validate(tenant, { ...definition, preferredProvider: "scripted" })).body.routing).toMatchObject({ providerId: "scripted", model: "scripted" });
  });

  it("reports reserved parameter names, bad semver ranges, unknown Liquid variables with line and column, and output schemas that do not compile", async () => {
    const tenant = await newTenant();
    const response = await validate(tenant, agentDefinition({
      instructions: "Line one\nHello {{ who }}",
      parameters: [{ name: "today", type: "string" }],
      tools: [{ id: "x.tool", version: "not a range" }],
      output: { schema: { type: "object", properties: { a: { type: "nope" } } } },
    }));
    expect(response.status).toBe(200);
    expect(response.body.valid).toBe(false);
    const byPath = Object.fromEntries(response.body.issues.map((item: { path: string; message: string }) => [item.path, item.message]));
    expect(Object.keys(byPath).sort()).toEqual(["/instructions", "/output/schema", "/parameters/0/name", "/tools/0/version"]);
    expect(byPath["/parameters/0/name"]).toContain("reserved");
    expect(byPath["/tools/0/version"]).toContain("npm semver range");
    expect(byPath["/instructions"]).toMatch(/^line 2, column 10: unknown variable "who"/);
    expect(byPath["/output/schema"]).toContain("does not compile");
    // A malformed range is an issue, not also a warning; it still shows in the resolution.
    expect(response.body.warnings).toEqual([]);
    expect(response.body.resolution).toEqual([{ index: 0, id: "x.tool", range: "not a range", version: null, available: [] }]);
  });

  it("reports an agent whose model no provider can serve at /capabilities/0; a kind nobody serves is a warning", async () => {
    const tenant = await newTenant();
    const vision = await validate(tenant, agentDefinition({ capabilities: [{ needs: [{ feature: "vision" }] }] }));
    expect(vision.body.valid).toBe(false);
    expect(vision.body.routing).toEqual({ error: "no-provider", capability: 0, message: expect.stringContaining('lacks feature "vision"') });
    expect(vision.body.issues).toEqual([{ path: "/capabilities/0", message: vision.body.routing.message }]);
    // A kind no provider serves fails a turn only if the turn needs it: the turn's model is routed as usual.
    const gpu = await validate(tenant, agentDefinition({ capabilities: [{ kind: "gpu-compute" }] }));
    expect(gpu.body).toMatchObject({ valid: true, issues: [], routing: { providerId: "dev-echo" } });
    expect(gpu.body.warnings).toEqual([{ path: "/capabilities/0", message: expect.stringContaining('no provider serves capability kind "gpu-compute"') }]);
    // Registration accepts both (providers are deployment configuration) and warns.
    for (const capabilities of [[{ kind: "gpu-compute" }], [{ needs: [{ feature: "vision" }] }]]) {
      const created = await register(tenant, agentDefinition({ capabilities }));
      expect(created.status).toBe(201);
      expect(paths(created.body.warnings)).toEqual(["/capabilities/0"]);
    }
  });

  it("matches every capability entry by its kind, not only the first: an unservable later entry is reported at its index", async () => {
    const tenant = await newTenant();
    const gpu = await validate(tenant, agentDefinition({ capabilities: [{}, { kind: "gpu-compute" }] }));
    expect(gpu.body).toMatchObject({ valid: true, issues: [], routing: { providerId: "dev-echo" } });
    expect(gpu.body.warnings).toEqual([{ path: "/capabilities/1", message: expect.stringMatching(/^no provider serves capability kind "gpu-compute"/) }]);
    const unmet = await validate(tenant, agentDefinition({ capabilities: [{ kind: "llm-inference" }, { needs: [{ feature: "vision" }] }] }));
    expect(unmet.body).toMatchObject({ valid: false, routing: { error: "no-provider", capability: 1 } });
    expect(unmet.body.issues).toEqual([{ path: "/capabilities/1", message: expect.stringContaining('/capabilities/1: no provider can serve') }]);
    expect(unmet.body.issues[0].message).toContain('lacks feature "vision"');
    // dev-embed serves embedding: an embedding entry is neither an issue nor a warning.
    const fine = await validate(tenant, agentDefinition({ capabilities: [{}, { kind: "llm-inference" }, { kind: "embedding" }] }));
    expect(fine.body).toMatchObject({ valid: true, issues: [], warnings: [], routing: { providerId: "dev-echo" } });
    const created = await register(tenant, agentDefinition({ capabilities: [{}, { kind: "gpu-compute" }] }));
    expect(created.status).toBe(201);
    expect(paths(created.body.warnings)).toEqual(["/capabilities/1"]);
  });

  it("warns about unresolvable ranges and about a registration that would conflict", async () => {
    const tenant = await newTenant();
    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Second" } });
    const toolId = `w${Date.now().toString(36)}.tool`;
    await registerTool(tenant, toolId, ["1.0.0"], second.body.id);
    const definition = agentDefinition({ tools: [{ id: toolId, version: "^1.0.0" }] });
    // Default project: the tool lives elsewhere.
    const here = await validate(tenant, definition);
    expect(here.body).toMatchObject({ valid: true, warnings: [{ path: "/tools/0/version" }], resolution: [{ version: null, available: [] }] });
    // In the tool's project it resolves.
    const there = await validate(tenant, { ...definition, projectId: second.body.id });
    expect(there.body).toMatchObject({ valid: true, warnings: [], resolution: [{ version: "1.0.0", available: ["1.0.0"] }] });
    await register(tenant, definition, second.body.id);
    const again = await validate(tenant, { ...definition, projectId: second.body.id });
    expect(again.body.warnings).toEqual([{ path: "/version", message: expect.stringContaining("agent-already-registered") }]);
    const elsewhere = await validate(tenant, { ...definition, version: "2.0.0" });
    expect(paths(elsewhere.body.warnings)).toEqual(["/tools/0/version", "/id"]);
  });

  it("reports every problem of an incomplete draft and still answers 200", async () => {
    const tenant = await newTenant();
    const response = await validate(tenant, { id: "draft.agent", instructions: "Hi {{ name_of_user }}", tools: [{ id: "a" }] });
    expect(response.status).toBe(200);
    expect(response.body.valid).toBe(false);
    expect(paths(response.body.issues)).toEqual(expect.arrayContaining(["/version", "/name", "/capabilities", "/retrieval", "/guardrails", "/tools/0/version", "/instructions"]));
    expect(response.body.resolution).toEqual([]);
    expect(response.body.routing).toMatchObject({ providerId: "dev-echo" });
    expectError(await validate(tenant, { ...agentDefinition(), extra: true }), 400, "unknown-field");
    expectError(await validate(tenant, { ...agentDefinition(), projectId: "nope" }), 400, "bad-input");
    expectError(await call("POST", "/v1/agents/validate", { key: tenant.key, rawBody: "{", headers: { "Content-Type": "application/json" } }), 400, "bad-input");
  });
});
