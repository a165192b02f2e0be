import { describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "./helpers/api";

let counter = 0;
/** A unique, valid guardrail definition for tests. */
function guardrailDefinition(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    id: `test.guardrail-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}`,
    version: "1.0.0",
    name: "No passwords",
    description: "Stops answers that mention passwords.",
    action: "halt",
    check: { kind: "deny-terms", terms: ["password", "passcode"] },
    ...overrides,
  };
}

const register = (tenant: TestTenant, definition: Record<string, unknown>, extra: Record<string, unknown> = { projectId: tenant.projectId }) =>
  call("POST", "/v1/guardrails", { key: tenant.key, body: { ...definition, ...extra } });

async function viewerKey(tenant: TestTenant): Promise<string> {
  const viewer = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "v", serviceAccount: { name: "viewer", role: "viewer" } } });
  if (viewer.status !== 201) throw new Error(`viewer key creation failed: ${viewer.text}`);
  return viewer.body.key;
}

const versionsOf = (list: Array<{ version: string }>) => list.map((item) => item.version);

describe("guardrail registry", () => {
  it("registers a definition (201 {guardrailId, version}) and reads it back exactly as registered", async () => {
    const tenant = await newTenant();
    const definition = guardrailDefinition({ tags: ["security"], message: "Never share credentials", check: { kind: "regex", pattern: "\\bsk-[A-Za-z0-9]{8,}", flags: "i", match: "forbid" } });
    const created = await register(tenant, definition);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ guardrailId: definition.id, version: "1.0.0" });

    const version = await call("GET", `/v1/guardrails/${definition.id}/versions/1.0.0`, { key: tenant.key });
    expect(version.status).toBe(200);
    expect(version.body).toMatchObject({ guardrailId: definition.id, version: "1.0.0", projectId: tenant.projectId, status: "active", isLatest: true, statusChangedAt: null });
    expect(version.body.definition).toEqual(definition);
    expect(version.text).toContain(JSON.stringify(definition));

    const guardrail = await call("GET", `/v1/guardrails/${definition.id}`, { key: tenant.key });
    expect(guardrail.status).toBe(200);
    expect(guardrail.body).toMatchObject({ guardrailId: definition.id, projectId: tenant.projectId, latestVersion: "1.0.0", latest: { version: "1.0.0", definition } });
    expect(versionsOf(guardrail.body.versions)).toEqual(["1.0.0"]);
  });

  it("without projectId, registers in the tenant's default project, or in the key's project", async () => {
    const tenant = await newTenant();
    const first = guardrailDefinition();
    expect((await register(tenant, first, {})).status).toBe(201);
    expect((await call("GET", `/v1/guardrails/${first.id}`, { key: tenant.key })).body.projectId).toBe(tenant.projectId);

    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Second" } });
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "n", projectId: second.body.id } });
    const other = guardrailDefinition();
    expect((await call("POST", "/v1/guardrails", { key: narrowed.body.key, body: other })).status).toBe(201);
    expect((await call("GET", `/v1/guardrails/${other.id}`, { key: tenant.key })).body.projectId).toBe(second.body.id);
    // A narrowed key cannot name another project.
    const refused = expectError(await call("POST", "/v1/guardrails", { key: narrowed.body.key, body: { ...guardrailDefinition(), projectId: tenant.projectId } }), 400, "bad-input");
    expect(refused.details.issues[0].path).toBe("/projectId");
  });

  it("answers 409 guardrail-already-registered for the same id and version", async () => {
    const tenant = await newTenant();
    const definition = guardrailDefinition();
    expect((await register(tenant, definition)).status).toBe(201);
    const again = expectError(await register(tenant, { ...definition, name: "changed" }), 409, "guardrail-already-registered");
    expect(again.details).toEqual({ guardrailId: definition.id, version: "1.0.0" });
    expect((await call("GET", `/v1/guardrails/${definition.id}/versions/1.0.0`, { key: tenant.key })).body.definition.name).toBe("No passwords");
  });

  it("answers 409 guardrail-project-mismatch when the id lives in another project; another tenant's id is another guardrail", async () => {
    const tenant = await newTenant();
    const project = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Second" } });
    const definition = guardrailDefinition();
    await register(tenant, definition);
    expectError(await register(tenant, { ...definition, version: "2.0.0" }, { projectId: project.body.id }), 409, "guardrail-project-mismatch");
    expect(versionsOf((await call("GET", `/v1/guardrails/${definition.id}/versions`, { key: tenant.key })).body.data)).toEqual(["1.0.0"]);
    const other = await newTenant();
    expect((await register(other, definition)).status).toBe(201);
  });

  it("answers 400 validation-failed with every issue and its JSON pointer, and registers nothing", async () => {
    const tenant = await newTenant();
    const bad = guardrailDefinition({ version: "1.0", name: " ", action: "block", check: { kind: "regex", pattern: "(unclosed", flags: "gg", extra: 1 } });
    const error = expectError(await register(tenant, bad), 400, "validation-failed");
    const paths = error.details.issues.map((issue: { path: string }) => issue.path).sort();
    expect(paths).toEqual(["/action", "/check/extra", "/check/flags", "/check/pattern", "/name", "/version"]);
    expect(error.details.issues).toContainEqual({ path: "/check/pattern", message: expect.stringContaining("Unterminated group") });

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ kind: "deny-terms", terms: ["a", "A"] }, "/check/terms/1"],
      [{ kind: "deny-terms", terms: [] }, "/check/terms"],
      [{ kind: "max-length", maxLength: 0 }, "/check/maxLength"],
      [{ kind: "json-schema", schema: { type: "strnig" } }, "/check/schema/type"],
      [{ kind: "json-schema", schema: { type: "string", minLenght: 1 } }, "/check/schema"],
      [{ kind: "profanity" }, "/check/kind"],
    ];
    for (const [check, path] of cases) {
      const failed = expectError(await register(tenant, guardrailDefinition({ check })), 400, "validation-failed");
      expect(failed.details.issues.map((issue: { path: string }) => issue.path)).toContain(path);
    }
    expect((await call("GET", "/v1/guardrails", { key: tenant.key })).body.data).toEqual([]);
  });

  it("answers 400 for bad JSON, unknown top-level fields and a malformed or foreign projectId", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const definition = guardrailDefinition();
    expectError(await call("POST", "/v1/guardrails", { key: tenant.key, rawBody: '{"id": "x",', headers: { "Content-Type": "application/json" } }), 400, "bad-input");
    expectError(await call("POST", "/v1/guardrails", { key: tenant.key, body: [definition] }), 400, "bad-input");
    const unknown = expectError(await register(tenant, { ...definition, severity: "high" }), 400, "unknown-field");
    expect(unknown.details.issues).toEqual([{ path: "/severity", message: 'unknown field "severity"' }]);
    for (const projectId of ["nope", 42, null, other.projectId, "00000000-0000-4000-8000-000000000000"]) {
      const error = expectError(await register(tenant, definition, { projectId }), 400, "bad-input");
      expect(error.details.issues[0].path).toBe("/projectId");
    }
    expectError(await call("GET", `/v1/guardrails/${definition.id}`, { key: tenant.key }), 404, "not-found");
  });

  it("a foreign projectId is 400 bad-input even when the definition has other problems, reported together", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const broken = guardrailDefinition({ version: "01.0.0", action: "explode" });
    const error = expectError(await register(tenant, broken, { projectId: other.projectId }), 400, "bad-input");
    expect(error.details.issues).toEqual([
      { path: "/projectId", message: "projectId is not a project of the caller's tenant" },
      { path: "/version", message: expect.stringContaining("must be a semver version") },
      { path: "/action", message: "must be one of: halt, flag" },
    ]);
    // Without projectId the tenant's default project is used: the definition's problems alone.
    expect(expectError(await register(tenant, broken, {}), 400, "validation-failed").details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/version", "/action"]);
  });

  it("401 without a key; 403 permission-denied for a viewer's writes, while a viewer reads", async () => {
    expectError(await call("POST", "/v1/guardrails", { body: guardrailDefinition() }), 401, "auth-missing");
    expectError(await call("GET", "/v1/guardrails"), 401, "auth-missing");
    const tenant = await newTenant();
    const definition = guardrailDefinition();
    await register(tenant, definition);
    const viewer = await viewerKey(tenant);
    expectError(await call("POST", "/v1/guardrails", { key: viewer, body: { ...guardrailDefinition(), projectId: tenant.projectId } }), 403, "permission-denied");
    expectError(await call("POST", `/v1/guardrails/${definition.id}/versions/1.0.0/unregister`, { key: viewer }), 403, "permission-denied");
    expectError(await call("POST", `/v1/guardrails/${definition.id}/versions/1.0.0/reinstate`, { key: viewer }), 403, "permission-denied");
    expect((await call("GET", `/v1/guardrails/${definition.id}`, { key: viewer })).body.latest.status).toBe("active");
    expect((await call("GET", "/v1/guardrails", { key: viewer })).body.data.map((item: { guardrailId: string }) => item.guardrailId)).toEqual([definition.id]);
  });

  it("the latest active version is the highest by semver; unregister hides and reinstate restores", async () => {
    const tenant = await newTenant();
    const base = guardrailDefinition();
    for (const version of ["1.2.0", "1.10.0", "1.9.3", "2.0.0-beta.1"]) {
      expect((await register(tenant, { ...base, version, name: `v${version}` })).status).toBe(201);
    }
    const guardrail = await call("GET", `/v1/guardrails/${base.id}`, { key: tenant.key });
    expect(guardrail.body.latestVersion).toBe("2.0.0-beta.1");
    expect(versionsOf(guardrail.body.versions)).toEqual(["2.0.0-beta.1", "1.10.0", "1.9.3", "1.2.0"]);

    const unregistered = await call("POST", `/v1/guardrails/${base.id}/versions/2.0.0-beta.1/unregister`, { key: tenant.key });
    expect(unregistered.status).toBe(200);
    expect(unregistered.body).toMatchObject({ guardrailId: base.id, version: "2.0.0-beta.1", status: "unregistered", isLatest: false });
    expect(typeof unregistered.body.statusChangedAt).toBe("string");
    expect((await call("GET", `/v1/guardrails/${base.id}`, { key: tenant.key })).body).toMatchObject({ latestVersion: "1.10.0", latest: { definition: { name: "v1.10.0" } } });
    expect((await call("GET", `/v1/guardrails?q=${base.id}`, { key: tenant.key })).body.data[0].latestVersion).toBe("1.10.0");
    // Still readable by exact version; a second unregister answers the same state.
    expect((await call("GET", `/v1/guardrails/${base.id}/versions/2.0.0-beta.1`, { key: tenant.key })).body.status).toBe("unregistered");
    expect((await call("POST", `/v1/guardrails/${base.id}/versions/2.0.0-beta.1/unregister`, { key: tenant.key })).body.status).toBe("unregistered");
    expect((await call("POST", `/v1/guardrails/${base.id}/versions/2.0.0-beta.1/reinstate`, { key: tenant.key })).body).toMatchObject({ status: "active", isLatest: true });
    expect((await call("GET", `/v1/guardrails/${base.id}`, { key: tenant.key })).body.latestVersion).toBe("2.0.0-beta.1");

    for (const version of ["2.0.0-beta.1", "1.10.0", "1.9.3", "1.2.0"]) await call("POST", `/v1/guardrails/${base.id}/versions/${version}/unregister`, { key: tenant.key });
    expect((await call("GET", `/v1/guardrails/${base.id}`, { key: tenant.key })).body).toMatchObject({ latestVersion: null, latest: null });
    expect((await call("GET", "/v1/guardrails", { key: tenant.key })).body.data).toEqual([]);
    expect((await call("POST", `/v1/guardrails/${base.id}/versions/1.2.0/reinstate`, { key: tenant.key })).body).toMatchObject({ status: "active", isLatest: true });
    expect((await call("GET", "/v1/guardrails", { key: tenant.key })).body.data.map((item: { latestVersion: string }) => item.latestVersion)).toEqual(["1.2.0"]);
  });

  it("unknown ids and versions are 404; malformed ones are 400", async () => {
    const tenant = await newTenant();
    const definition = guardrailDefinition();
    await register(tenant, definition);
    expectError(await call("GET", "/v1/guardrails/test.unknown", { key: tenant.key }), 404, "not-found");
    expectError(await call("GET", "/v1/guardrails/test.unknown/versions", { key: tenant.key }), 404, "not-found");
    expectError(await call("GET", `/v1/guardrails/${definition.id}/versions/9.9.9`, { key: tenant.key }), 404, "not-found");
    expectError(await call("POST", `/v1/guardrails/${definition.id}/versions/9.9.9/unregister`, { key: tenant.key }), 404, "not-found");
    expectError(await call("POST", `/v1/guardrails/${definition.id}/versions/9.9.9/reinstate`, { key: tenant.key }), 404, "not-found");
    for (const version of ["1.0", "01.0.0", "latest", "1.0.0.0"]) {
      expectError(await call("GET", `/v1/guardrails/${definition.id}/versions/${version}`, { key: tenant.key }), 400, "bad-input");
      expectError(await call("POST", `/v1/guardrails/${definition.id}/versions/${version}/unregister`, { key: tenant.key }), 400, "bad-input");
    }
    expectError(await call("GET", `/v1/guardrails/${"x".repeat(201)}`, { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/guardrails/a%01b", { key: tenant.key }), 400, "bad-input");
    expectError(await call("POST", `/v1/guardrails/${definition.id}/versions/1.0.0/unregister`, { key: tenant.key, body: { reason: "x" } }), 400, "unknown-field");
    expect((await call("GET", `/v1/guardrails/${definition.id}/versions/1.0.0`, { key: tenant.key })).body.status).toBe("active");
  });

  it("lists versions newest first, paginated", async () => {
    const tenant = await newTenant();
    const base = guardrailDefinition();
    for (const version of ["0.1.0", "0.2.0", "0.3.0", "1.0.0", "2.0.0"]) await register(tenant, { ...base, version });
    const first = await call("GET", `/v1/guardrails/${base.id}/versions?limit=2`, { key: tenant.key });
    expect(first.body).toMatchObject({ hasMore: true });
    expect(versionsOf(first.body.data)).toEqual(["2.0.0", "1.0.0"]);
    const second = await call("GET", `/v1/guardrails/${base.id}/versions?limit=2&cursor=${first.body.nextCursor}`, { key: tenant.key });
    expect(versionsOf(second.body.data)).toEqual(["0.3.0", "0.2.0"]);
    const third = await call("GET", `/v1/guardrails/${base.id}/versions?limit=2&cursor=${second.body.nextCursor}`, { key: tenant.key });
    expect(third.body).toMatchObject({ data: [{ version: "0.1.0" }], hasMore: false });
    const forged = Buffer.from(JSON.stringify(["not-a-version"])).toString("base64url");
    expectError(await call("GET", `/v1/guardrails/${base.id}/versions?cursor=${forged}`, { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", `/v1/guardrails/${base.id}/versions?limit=0`, { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", `/v1/guardrails/${base.id}/versions?sort=asc`, { key: tenant.key }), 400, "unknown-field");
  });

  it("lists the latest active version of each, filtered by project, q (id, name, description, tags) and tag, paginated", async () => {
    const tenant = await newTenant();
    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Ops" } });
    await register(tenant, guardrailDefinition({ id: "g.length", name: "Short answers", description: "Keeps answers brief", tags: ["style"], action: "flag", check: { kind: "max-length", maxLength: 2000 } }));
    await register(tenant, guardrailDefinition({ id: "g.json", name: "JSON only", tags: ["format", "style"], check: { kind: "json-schema", schema: { type: "object" } } }));
    await register(tenant, guardrailDefinition({ id: "g.secrets", name: "No secrets", description: "Blocks API keys", check: { kind: "regex", pattern: "sk-" } }), { projectId: second.body.id });
    const ids = async (query: string) => (await call("GET", `/v1/guardrails?${query}`, { key: tenant.key })).body.data.map((item: { guardrailId: string }) => item.guardrailId);
    expect(await ids("")).toEqual(["g.json", "g.length", "g.secrets"]);
    expect(await ids(`projectId=${second.body.id}`)).toEqual(["g.secrets"]);
    expect(await ids(`projectId=${tenant.projectId}`)).toEqual(["g.json", "g.length"]);
    expect(await ids("q=BRIEF")).toEqual(["g.length"]);
    expect(await ids("q=json only")).toEqual(["g.json"]);
    expect(await ids("q=g.sec")).toEqual(["g.secrets"]);
    expect(await ids("q=format")).toEqual(["g.json"]);
    expect(await ids("tag=style")).toEqual(["g.json", "g.length"]);
    expect(await ids("tag=styl")).toEqual([]);
    expect(await ids("tag=style&q=short")).toEqual(["g.length"]);
    const page = await call("GET", "/v1/guardrails?limit=2", { key: tenant.key });
    expect(page.body).toMatchObject({ hasMore: true });
    expect((await call("GET", `/v1/guardrails?limit=2&cursor=${page.body.nextCursor}`, { key: tenant.key })).body).toMatchObject({ data: [{ guardrailId: "g.secrets" }], hasMore: false });
    const summary = (await call("GET", "/v1/guardrails?q=g.length", { key: tenant.key })).body.data[0];
    expect(summary).toEqual({ guardrailId: "g.length", projectId: tenant.projectId, latestVersion: "1.0.0", name: "Short answers", description: "Keeps answers brief", action: "flag", checkKind: "max-length", tags: ["style"], registeredAt: expect.any(String) });
    expectError(await call("GET", "/v1/guardrails?projectId=nope", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/guardrails?effect=reads", { key: tenant.key }), 400, "unknown-field");
    expectError(await call("GET", "/v1/guardrails?cursor=%%%", { key: tenant.key }), 400, "bad-input");
  });

  it("another tenant's guardrails are 404 on every route and absent from lists", async () => {
    const owner = await newTenant();
    const stranger = await newTenant();
    const definition = guardrailDefinition();
    await register(owner, definition);
    for (const [method, path] of [
      ["GET", `/v1/guardrails/${definition.id}`],
      ["GET", `/v1/guardrails/${definition.id}/versions`],
      ["GET", `/v1/guardrails/${definition.id}/versions/1.0.0`],
      ["POST", `/v1/guardrails/${definition.id}/versions/1.0.0/unregister`],
      ["POST", `/v1/guardrails/${definition.id}/versions/1.0.0/reinstate`],
    ]) expectError(await call(method, path, { key: stranger.key }), 404, "not-found");
    expect((await call("GET", "/v1/guardrails", { key: stranger.key })).body.data).toEqual([]);
    expect((await call("GET", `/v1/guardrails?projectId=${owner.projectId}`, { key: stranger.key })).body.data).toEqual([]);
    expectError(await register(stranger, guardrailDefinition(), { projectId: owner.projectId }), 400, "bad-input");
    expect((await call("GET", `/v1/guardrails/${definition.id}/versions/1.0.0`, { key: owner.key })).body.status).toBe("active");
  });

  it("a key narrowed to a project does not see other projects' guardrails", async () => {
    const tenant = await newTenant();
    const second = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Hidden" } });
    const hidden = guardrailDefinition();
    await register(tenant, hidden, { projectId: second.body.id });
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "n", projectId: tenant.projectId } });
    expectError(await call("GET", `/v1/guardrails/${hidden.id}`, { key: narrowed.body.key }), 404, "not-found");
    expectError(await call("POST", `/v1/guardrails/${hidden.id}/versions/1.0.0/unregister`, { key: narrowed.body.key }), 404, "not-found");
    expect((await call("GET", "/v1/guardrails", { key: narrowed.body.key })).body.data).toEqual([]);
    expect((await call("GET", `/v1/guardrails?projectId=${second.body.id}`, { key: narrowed.body.key })).body.data).toEqual([]);
  });

  it("replays a POST with the same Idempotency-Key byte for byte; another body with that key is 409", async () => {
    const tenant = await newTenant();
    const definition = guardrailDefinition();
    const headers = { "Idempotency-Key": `guardrail-${definition.id}` };
    const first = await call("POST", "/v1/guardrails", { key: tenant.key, headers, body: { ...definition, projectId: tenant.projectId } });
    expect(first.status).toBe(201);
    const replay = await call("POST", "/v1/guardrails", { key: tenant.key, headers, body: { ...definition, projectId: tenant.projectId } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
    expect(replay.text).toBe(first.text);
    expectError(await call("POST", "/v1/guardrails", { key: tenant.key, headers, body: { ...definition, version: "1.0.1", projectId: tenant.projectId } }), 409, "idempotency-key-body-mismatch");
    expect(versionsOf((await call("GET", `/v1/guardrails/${definition.id}/versions`, { key: tenant.key })).body.data)).toEqual(["1.0.0"]);

    const unregisterHeaders = { "Idempotency-Key": `unregister-${definition.id}` };
    const unregistered = await call("POST", `/v1/guardrails/${definition.id}/versions/1.0.0/unregister`, { key: tenant.key, headers: unregisterHeaders });
    expect(unregistered.status).toBe(200);
    await call("POST", `/v1/guardrails/${definition.id}/versions/1.0.0/reinstate`, { key: tenant.key });
    const replayed = await call("POST", `/v1/guardrails/${definition.id}/versions/1.0.0/unregister`, { key: tenant.key, headers: unregisterHeaders });
    expect(replayed.headers.get("x-idempotent-replay")).toBe("true");
    expect(replayed.text).toBe(unregistered.text);
    // The replay ran nothing: the version is still active.
    expect((await call("GET", `/v1/guardrails/${definition.id}/versions/1.0.0`, { key: tenant.key })).body.status).toBe("active");
  });
});
