import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWireServer, type WireServer } from "../lib/models/providers/testing/wire-server";
import { call, expectError, newTenant, type TestTenant } from "./helpers/api";
import { registerAgent } from "./helpers/kernel";

/**
 * A key narrowed to one project reads what its project uses and writes nothing tenant-wide. Every tenant-wide route
 * is walked with such a key (an admin's, so the role is not what refuses it) and its documented answer asserted.
 */
describe("a key narrowed to one project, on every tenant-wide route", () => {
  let tenant: TestTenant;
  let otherProjectId: string;
  let narrowed: { id: string; key: string };
  let wideKeyId: string;
  let otherNarrowedKeyId: string;

  beforeAll(async () => {
    tenant = await newTenant("narrowed keys");
    const other = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Other project" } });
    expect(other.status).toBe(201);
    otherProjectId = other.body.id;
    const minted = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "narrow", projectId: tenant.projectId } });
    expect(minted.status).toBe(201);
    narrowed = { id: minted.body.id, key: minted.body.key };
    const wide = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "wide" } });
    wideKeyId = wide.body.id;
    const elsewhere = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "elsewhere", projectId: otherProjectId } });
    otherNarrowedKeyId = elsewhere.body.id;
    expect((await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "llm-key", value: "sk-narrowed-test" } })).status).toBe(201);
  });

  const narrowedError = (response: Awaited<ReturnType<typeof call>>) => {
    const error = expectError(response, 403, "permission-denied");
    expect(error.details).toMatchObject({ reason: "key-narrowed-to-project", projectId: tenant.projectId });
    expect(error.message).toContain("narrowed");
    return error;
  };

  const provider = (overrides: Record<string, unknown> = {}) => ({ id: "narrow-llm", kind: "openai-compatible", baseUrl: "https://llm.example.test/v1", apiKeySecret: "llm-key", models: [{ name: "m1", features: ["tool-use"] }], ...overrides });

  it("model providers: cannot add or delete one; lists and reads only those its project may use", async () => {
    narrowedError(await call("POST", "/v1/providers", { key: narrowed.key, body: provider() }));
    expectError(await call("GET", "/v1/providers/narrow-llm", { key: tenant.key }), 404, "not-found");

    const everywhere = await call("POST", "/v1/providers", { key: tenant.key, body: provider({ id: "everywhere-llm" }) });
    expect(everywhere.status).toBe(201);
    expect(everywhere.body.projectIds).toBeNull();
    const onlyOther = await call("POST", "/v1/providers", { key: tenant.key, body: provider({ id: "other-llm", projectIds: [otherProjectId] }) });
    expect(onlyOther.status).toBe(201);
    expect(onlyOther.body.projectIds).toEqual([otherProjectId]);

    const seen = (await call("GET", "/v1/providers", { key: narrowed.key })).body.data.map((p: { id: string }) => p.id);
    expect(seen).toContain("everywhere-llm");
    expect(seen).not.toContain("other-llm");
    expect((await call("GET", "/v1/providers/everywhere-llm", { key: narrowed.key })).status).toBe(200);
    expectError(await call("GET", "/v1/providers/other-llm", { key: narrowed.key }), 404, "not-found");
    // Asking for another project's view changes nothing for a narrowed key.
    expect((await call("GET", `/v1/providers?projectId=${otherProjectId}`, { key: narrowed.key })).body.data).toEqual([]);

    narrowedError(await call("DELETE", "/v1/providers/everywhere-llm", { key: narrowed.key }));
    narrowedError(await call("DELETE", "/v1/providers/other-llm", { key: narrowed.key }));
    expect((await call("GET", "/v1/providers/everywhere-llm", { key: tenant.key })).status).toBe(200);

    // A tenant-wide key sees every provider with its limit, and filters by project.
    const all = (await call("GET", "/v1/providers", { key: tenant.key })).body.data.map((p: { id: string }) => p.id);
    expect(all).toEqual(expect.arrayContaining(["everywhere-llm", "other-llm"]));
    const forDefault = (await call("GET", `/v1/providers?projectId=${tenant.projectId}`, { key: tenant.key })).body.data.map((p: { id: string }) => p.id);
    expect(forDefault).not.toContain("other-llm");
  });

  it("secrets: cannot list, set or delete them, and they stay as they were", async () => {
    narrowedError(await call("GET", "/v1/secrets", { key: narrowed.key }));
    narrowedError(await call("POST", "/v1/secrets", { key: narrowed.key, body: { name: "llm-key", value: "overwritten" } }));
    narrowedError(await call("DELETE", "/v1/secrets/llm-key", { key: narrowed.key }));
    const listed = await call("GET", "/v1/secrets", { key: tenant.key });
    expect(listed.body.data).toEqual([expect.objectContaining({ name: "llm-key", version: 1 })]);
  });

  it("keys: lists and revokes only its own keys narrowed to its project; mints only such keys; no service accounts", async () => {
    const child = await call("POST", "/v1/tokens", { key: narrowed.key, body: { name: "child" } });
    expect(child.status).toBe(201);
    expect(child.body.projectId).toBe(tenant.projectId);
    expectError(await call("POST", "/v1/tokens", { key: narrowed.key, body: { name: "escape", projectId: otherProjectId } }), 400, "bad-input");
    narrowedError(await call("POST", "/v1/tokens", { key: narrowed.key, body: { name: "robot", serviceAccount: { name: "robot" } } }));

    const listed = (await call("GET", "/v1/tokens", { key: narrowed.key })).body.data.map((t: { id: string }) => t.id);
    expect(listed).toEqual(expect.arrayContaining([narrowed.id, child.body.id]));
    expect(listed).not.toContain(wideKeyId);
    expect(listed).not.toContain(otherNarrowedKeyId);

    expectError(await call("POST", `/v1/tokens/${wideKeyId}/revoke`, { key: narrowed.key }), 404, "not-found");
    expectError(await call("POST", `/v1/tokens/${otherNarrowedKeyId}/revoke`, { key: narrowed.key }), 404, "not-found");
    const revoked = await call("POST", `/v1/tokens/${child.body.id}/revoke`, { key: narrowed.key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    // The tenant's own key and the other project's key still work.
    expect((await call("GET", "/v1/identity/whoami", { key: tenant.key })).status).toBe(200);
    const wideList = (await call("GET", "/v1/tokens?limit=100", { key: tenant.key })).body.data;
    expect(wideList.find((t: { id: string }) => t.id === wideKeyId).revokedAt).toBeNull();
    expect(wideList.find((t: { id: string }) => t.id === otherNarrowedKeyId).revokedAt).toBeNull();
  });

  it("projects: sees only its own; cannot create one", async () => {
    const listed = await call("GET", "/v1/projects", { key: narrowed.key });
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([tenant.projectId]);
    expect((await call("GET", `/v1/projects/${tenant.projectId}`, { key: narrowed.key })).status).toBe(200);
    expectError(await call("GET", `/v1/projects/${otherProjectId}`, { key: narrowed.key }), 404, "not-found");
    narrowedError(await call("POST", "/v1/projects", { key: narrowed.key, body: { name: "sneaky" } }));
    const names = (await call("GET", "/v1/projects", { key: tenant.key })).body.data.map((p: { name: string }) => p.name);
    expect(names).not.toContain("sneaky");
  });

  it("tenants: the operator route does not take an API key, narrowed or not", async () => {
    expectError(await call("POST", "/v1/tenants", { key: narrowed.key, body: { name: "x" } }), 401, "auth-invalid");
  });

  it("whoami says the key is narrowed", async () => {
    const me = await call("GET", "/v1/identity/whoami", { key: narrowed.key });
    expect(me.body.apiKey).toMatchObject({ id: narrowed.id, projectId: tenant.projectId });
  });
});

describe("a provider limited to projects", () => {
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer();
  });
  afterAll(async () => {
    await wire.close();
  });

  it("serves only the runs of its projects; other projects' runs never reach it", async () => {
    const tenant = await newTenant("limited provider");
    const other = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "B" } });
    expect((await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "llm-key", value: "sk-limited" } })).status).toBe(201);
    const created = await call("POST", "/v1/providers", {
      key: tenant.key,
      body: { id: "b-only", kind: "openai-compatible", baseUrl: `${wire.url}/v1`, apiKeySecret: "llm-key", models: [{ name: "b-1", features: ["tool-use"] }], projectIds: [other.body.id] },
    });
    expect(created.status).toBe(201);

    // An agent in the default project that names no provider: dev-echo answers, not the tenant's provider.
    const inDefault = await registerAgent(tenant, { preferredProvider: undefined });
    const before = wire.requests.length;
    const run = await call("POST", "/v1/runs", { key: tenant.key, body: { agent: { id: inDefault.id }, input: { userMessage: "hello" } } });
    expect(run.status).toBe(201);
    expect(run.body.provider.id).toBe("dev-echo");
    expect(wire.requests.length).toBe(before);

    // Naming it from another project does not reach it either: routing ignores a provider the project may not use.
    const naming = await registerAgent(tenant, { preferredProvider: "b-only" });
    const dry = await call("POST", "/v1/runs", { key: tenant.key, body: { agent: { id: naming.id }, input: { userMessage: "hello" }, options: { dryRun: true } } });
    expect(dry.status).toBe(200);
    expect(dry.body.provider.id).not.toBe("b-only");
    expect(dry.body.provider.reason).toContain("b-only");

    // In project B it serves, and the agent's preferredProvider is honoured before anything else.
    const inB = await call("POST", "/v1/agents", {
      key: tenant.key,
      body: { id: "b.agent", version: "1.0.0", name: "B", instructions: "Answer.", capabilities: [{ kind: "llm-inference" }], tools: [], retrieval: [], guardrails: [], preferredProvider: "b-only", projectId: other.body.id },
    });
    expect(inB.status).toBe(201);
    wire.enqueue({ json: { id: "c1", object: "chat.completion", model: "b-1", choices: [{ index: 0, message: { role: "assistant", content: "from B" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } });
    const runB = await call("POST", "/v1/runs", { key: tenant.key, body: { agent: { id: "b.agent" }, input: { userMessage: "hello" } } });
    expect(runB.status).toBe(201);
    expect(runB.body).toMatchObject({ status: "completed", output: "from B", provider: { id: "b-only", model: "b-1" } });
    expect(wire.requests.length).toBe(before + 1);
  });

  it("refuses projectIds that are not the tenant's, with the index of each", async () => {
    const tenant = await newTenant("limited provider refusal");
    const stranger = await newTenant("stranger");
    expect((await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "llm-key", value: "sk" } })).status).toBe(201);
    const body = { id: "p1", kind: "openai-compatible", baseUrl: "https://llm.example.test/v1", apiKeySecret: "llm-key", models: [{ name: "m" }] };
    const refused = expectError(await call("POST", "/v1/providers", { key: tenant.key, body: { ...body, projectIds: [tenant.projectId, stranger.projectId] } }), 400, "bad-input");
    expect(refused.details.issues).toEqual([{ path: "/projectIds/1", message: "is not a project of the caller's tenant" }]);
    expectError(await call("POST", "/v1/providers", { key: tenant.key, body: { ...body, projectIds: [] } }), 400, "validation-failed");
    expectError(await call("POST", "/v1/providers", { key: tenant.key, body: { ...body, projectIds: ["not-a-uuid"] } }), 400, "validation-failed");
    expectError(await call("GET", "/v1/providers/p1", { key: tenant.key }), 404, "not-found");
  });
});
