import { describe, expect, it } from "vitest";
import { call, expectError, kindgi, newTenant } from "./helpers/api";

describe("tenants, projects, keys", () => {
  it("POST /v1/tenants is authorized by the operator token alone", async () => {
    const { operatorToken } = kindgi();
    expectError(await call("POST", "/v1/tenants", { body: { name: "x" } }), 401, "auth-missing");
    expectError(await call("POST", "/v1/tenants", { key: operatorToken + "x", body: { name: "x" } }), 401, "auth-invalid");
    const tenant = await newTenant();
    expectError(await call("POST", "/v1/tenants", { key: tenant.key, body: { name: "x" } }), 401, "auth-invalid");
    expectError(await call("POST", "/v1/tenants", { key: operatorToken, body: {} }), 400, "bad-input");
    const created = await call("POST", "/v1/tenants", { key: operatorToken, body: { name: "Acme", adminEmail: `acme-${Date.now()}@example.test` } });
    expect(created.status).toBe(201);
    expect(created.body.apiKey.key).toMatch(/^kgi_[0-9A-Za-z]{40}$/);
    expect(created.body.admin.password).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(created.body.project.isDefault).toBe(true);
  });

  it("the first start created a tenant whose admin key is KINDGI_BOOTSTRAP_API_KEY", async () => {
    const whoami = await call("GET", "/v1/identity/whoami", { key: kindgi().bootstrapKey });
    expect(whoami.status).toBe(200);
    expect(whoami.body.user.role).toBe("admin");
    expect(whoami.body.user.email).toMatch(/^first-admin-/);
    expect(whoami.body.tenant.defaultProjectId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("whoami names the tenant, the user and the key", async () => {
    const tenant = await newTenant("Whoami Inc");
    const response = await call("GET", "/v1/identity/whoami", { key: tenant.key });
    expect(response.status).toBe(200);
    expect(response.body.tenant).toEqual({ id: tenant.tenantId, name: "Whoami Inc", defaultProjectId: tenant.projectId });
    expect(response.body.user).toEqual({ id: tenant.adminUserId, kind: "person", name: "Admin", email: expect.stringMatching(/@/), role: "admin", reviewerLevel: "admin" });
    expect(response.body.apiKey).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), prefix: tenant.key.slice(0, 12), projectId: null });
    // The fields keep the order they have always been answered in.
    expect(Object.keys(response.body)).toEqual(["tenant", "user", "apiKey"]);
    expect(Object.keys(response.body.user)).toEqual(["id", "kind", "name", "email", "role", "reviewerLevel"]);
    expect(response.text).not.toContain(tenant.key);
  });

  it("projects: list, get, create; one default; names unique", async () => {
    const tenant = await newTenant();
    const list = await call("GET", "/v1/projects", { key: tenant.key });
    expect(list.body).toMatchObject({ data: [{ id: tenant.projectId, name: "Default", isDefault: true }], hasMore: false });
    const created = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Research" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Research", isDefault: false });
    expect((await call("GET", `/v1/projects/${created.body.id}`, { key: tenant.key })).body.name).toBe("Research");
    expect((await call("GET", `/v1/projects/${created.body.id.toUpperCase()}`, { key: tenant.key })).body.id).toBe(created.body.id);
    expectError(await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Research" } }), 409, "project-name-taken");
    expectError(await call("GET", "/v1/projects/00000000-0000-4000-8000-000000000000", { key: tenant.key }), 404, "not-found");
    expect((await call("GET", "/v1/projects?limit=1", { key: tenant.key })).body).toMatchObject({ hasMore: true });
  });

  it("keys are shown once, stored hashed, listed without the secret, and revocable", async () => {
    const tenant = await newTenant();
    const minted = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "deploy" } });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ name: "deploy", projectId: null, revokedAt: null, actsFor: { userId: tenant.adminUserId, kind: "person" } });
    const list = await call("GET", "/v1/tokens", { key: tenant.key });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(minted.body.key);
    expect(list.text).not.toContain(tenant.key);
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(minted.body.id);
    const revoked = await call("POST", `/v1/tokens/${minted.body.id}/revoke`, { key: tenant.key });
    expect(revoked.body.revokedAt).not.toBeNull();
    const again = await call("POST", `/v1/tokens/${minted.body.id}/revoke`, { key: tenant.key });
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    expect((await call("GET", "/v1/tokens?includeRevoked=false", { key: tenant.key })).body.data.map((k: { id: string }) => k.id)).not.toContain(minted.body.id);
  });

  it("service-account keys act for a service account; only admins mint them", async () => {
    const tenant = await newTenant();
    const service = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "nightly", serviceAccount: { name: "nightly-bot" } } });
    expect(service.status).toBe(201);
    expect(service.body.actsFor).toMatchObject({ kind: "service", name: "nightly-bot" });
    const who = await call("GET", "/v1/identity/whoami", { key: service.body.key });
    expect(who.body.user).toMatchObject({ kind: "service", role: "member", email: null });
    expectError(await call("POST", "/v1/tokens", { key: service.body.key, body: { name: "x", serviceAccount: { name: "y" } } }), 403, "permission-denied");
    expectError(await call("POST", "/v1/projects", { key: service.body.key, body: { name: "nope" } }), 403, "permission-denied");
    const viewer = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "ro", serviceAccount: { name: "reader", role: "viewer" } } });
    expectError(await call("POST", "/v1/tokens", { key: viewer.body.key, body: { name: "x" } }), 403, "permission-denied");
    expect((await call("GET", "/v1/projects", { key: viewer.body.key })).status).toBe(200);
  });

  it("a key narrowed to one project sees and writes only that project", async () => {
    const tenant = await newTenant();
    const other = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "Other" } });
    const narrowed = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "narrow", projectId: tenant.projectId } });
    expect(narrowed.body.projectId).toBe(tenant.projectId);
    const projects = await call("GET", "/v1/projects", { key: narrowed.body.key });
    expect(projects.body.data.map((p: { id: string }) => p.id)).toEqual([tenant.projectId]);
    expectError(await call("GET", `/v1/projects/${other.body.id}`, { key: narrowed.body.key }), 404, "not-found");
    expectError(await call("POST", "/v1/tokens", { key: narrowed.body.key, body: { name: "escape", projectId: other.body.id } }), 400, "bad-input");
    const child = await call("POST", "/v1/tokens", { key: narrowed.body.key, body: { name: "child" } });
    expect(child.body.projectId).toBe(tenant.projectId);
    expectError(await call("POST", "/v1/projects", { key: narrowed.body.key, body: { name: "x" } }), 403, "permission-denied");
  });

  it("another tenant's projects and keys are 404", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const keyOfB = await call("POST", "/v1/tokens", { key: b.key, body: { name: "b-key" } });
    expectError(await call("GET", `/v1/projects/${b.projectId}`, { key: a.key }), 404, "not-found");
    expectError(await call("POST", `/v1/tokens/${keyOfB.body.id}/revoke`, { key: a.key }), 404, "not-found");
    expect((await call("GET", "/v1/identity/whoami", { key: keyOfB.body.key })).status).toBe(200);
    expect((await call("GET", "/v1/tokens", { key: a.key })).text).not.toContain(keyOfB.body.id);
  });
});
