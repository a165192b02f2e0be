import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrations } from "@/lib/db/migrate.mjs";
import { ModelProviderError, type ModelRequest } from "@/lib/models/provider";
import { startWireServer, type WireServer } from "@/lib/models/providers/testing/wire-server";
import type { Actor } from "@/lib/services/actor";
import { createTenant } from "@/lib/services/create-tenant";
import { deleteModelProvider, instantiateEmbeddingProvider, instantiateProvider, providersForProject, registerModelProvider } from "@/lib/services/model-providers";
import { defaultEmbeddingRoute, isRouted, routeCapability } from "@/lib/models/router";
import { startEmbeddingsServer, wireEmbedding } from "@/lib/models/providers/testing/embeddings-wire-server";
import { dbKernelEnvironment } from "@/lib/services/kernel-environment";
import type { AgentDefinition } from "@/lib/agents/validate-agent";
import { deleteSecret, putSecret } from "@/lib/services/secrets";
import { call, expectError, kindgi, newTenant } from "./helpers/api";
import { freshPostgresDatabase, newOperatorToken, startServer } from "./helpers/server";

describe("GET /v1/providers", () => {
  it("lists scripted, dev-embed and dev-echo (the test server has KINDGI_DEV_PROVIDERS=1), dev-echo last", async () => {
    const tenant = await newTenant();
    const response = await call("GET", "/v1/providers", { key: tenant.key });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const ids = response.body.data.map((provider: { id: string }) => provider.id);
    expect(ids.slice(-3)).toEqual(["scripted", "dev-embed", "dev-echo"]);
    expect(response.body.hasMore).toBe(false);
    const byId = Object.fromEntries(response.body.data.map((provider: { id: string }) => [provider.id, provider]));
    expect(byId["dev-echo"]).toEqual({ id: "dev-echo", kind: "dev-echo", capabilityKind: "llm-inference", source: "built-in", models: [{ name: "dev-echo", features: ["tool-use"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 }] });
    expect(byId.scripted).toEqual({ id: "scripted", kind: "scripted", capabilityKind: "llm-inference", source: "built-in", models: [{ name: "scripted", features: ["tool-use", "json-output"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 }] });
    expect(byId["dev-embed"]).toEqual({ id: "dev-embed", kind: "dev-embed", capabilityKind: "embedding", source: "built-in", models: [{ name: "dev-embed", features: [], dimensions: 512, inputUsdPerMTok: 0, outputUsdPerMTok: 0 }] });
  });

  it("paginates with limit and cursor; refuses unknown query parameters; needs a key", async () => {
    const tenant = await newTenant();
    const all = (await call("GET", "/v1/providers", { key: tenant.key })).body.data.map((p: { id: string }) => p.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call("GET", `/v1/providers?limit=1${cursor ? `&cursor=${cursor}` : ""}`, { key: tenant.key });
      expect(page.status).toBe(200);
      expect(page.body.data).toHaveLength(1);
      seen.push(page.body.data[0].id);
      cursor = page.body.hasMore ? page.body.nextCursor : undefined;
    } while (cursor);
    expect(seen).toEqual(all);
    expectError(await call("GET", "/v1/providers?kind=openai", { key: tenant.key }), 400, "unknown-field");
    expectError(await call("GET", "/v1/providers?cursor=%%%", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/providers"), 401, "auth-missing");
  });

  it("shows providers configured by environment without their keys or URLs; scripted only with KINDGI_DEV_PROVIDERS=1", async () => {
    const operatorToken = newOperatorToken();
    const secrets = { OPENAI_API_KEY: "sk-test-openai-SECRET-4711", ANTHROPIC_API_KEY: "sk-ant-test-SECRET-0815" };
    const server = await startServer({
      env: { ...secrets, OPENAI_BASE_URL: "http://10.9.8.7:1234/v1", OPENAI_MODELS: "gpt-4o-mini, local-llama", ANTHROPIC_MODELS: "claude-sonnet-4-5", KINDGI_DEV_PROVIDERS: undefined, KINDGI_OPERATOR_TOKEN: operatorToken },
    });
    try {
      const tenant = await call("POST", "/v1/tenants", { baseUrl: server.baseUrl, key: operatorToken, body: { name: "providers" } });
      expect(tenant.status).toBe(201);
      const response = await call("GET", "/v1/providers", { baseUrl: server.baseUrl, key: tenant.body.apiKey.key });
      expect(response.status).toBe(200);
      expect(response.body.data.map((p: { id: string; kind: string; source: string }) => [p.id, p.kind, p.source])).toEqual([
        ["openai", "openai-compatible", "environment"],
        ["openai-embeddings", "openai-compatible-embeddings", "environment"],
        ["anthropic", "anthropic", "environment"],
        ["dev-embed", "dev-embed", "built-in"],
        ["dev-echo", "dev-echo", "built-in"],
      ]);
      expect(response.body.data[0].models).toEqual([
        { name: "gpt-4o-mini", contextTokens: 128000, features: ["tool-use", "json-output"], inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6 },
        { name: "local-llama", features: ["tool-use", "json-output"] },
      ]);
      for (const secret of [...Object.values(secrets), "SECRET", "10.9.8.7"]) expect(response.text).not.toContain(secret);
      // The router prefers a real provider over dev-echo.
      const validated = await call("POST", "/v1/agents/validate", {
        baseUrl: server.baseUrl,
        key: tenant.body.apiKey.key,
        body: { id: "p.agent", version: "1.0.0", name: "P", instructions: "Hi", capabilities: [{}], tools: [], retrieval: [], guardrails: [], preferredProvider: "anthropic" },
      });
      expect(validated.body.routing).toMatchObject({ providerId: "anthropic", model: "claude-sonnet-4-5" });
      expect(validated.text).not.toContain("SECRET");
      // This server runs without KINDGI_ALLOW_PRIVATE_PROVIDER_URLS: a tenant provider may not use a loopback or private address.
      const key = tenant.body.apiKey.key;
      expect((await call("POST", "/v1/secrets", { baseUrl: server.baseUrl, key, body: { name: "llm.key", value: "sk-tenant-SECRET-42" } })).status).toBe(201);
      const provider = { id: "local", kind: "openai-compatible", apiKeySecret: "llm.key", models: [{ name: "llama3.1:8b" }] };
      for (const baseUrl of ["http://127.0.0.1:11434/v1", "http://localhost:11434/v1", "http://10.1.2.3/v1", "http://[::1]:8080/v1"]) {
        const refused = expectError(await call("POST", "/v1/providers", { baseUrl: server.baseUrl, key, body: { ...provider, baseUrl } }), 400, "validation-failed");
        expect(refused.details.issues).toEqual([{ path: "/baseUrl", message: expect.stringContaining("allowed only when the server runs with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1") }]);
      }
      // The environment's ids are reserved.
      expectError(await call("POST", "/v1/providers", { baseUrl: server.baseUrl, key, body: { ...provider, id: "openai", baseUrl: "https://llm.example.test/v1" } }), 409, "provider-already-registered");
      const created = await call("POST", "/v1/providers", { baseUrl: server.baseUrl, key, body: { ...provider, baseUrl: "https://llm.example.test/v1" } });
      expect(created.status).toBe(201);
      const listed = await call("GET", "/v1/providers", { baseUrl: server.baseUrl, key });
      expect(listed.body.data.map((p: { id: string; source: string }) => [p.id, p.source])).toEqual([
        ["local", "tenant"],
        ["openai", "environment"],
        ["openai-embeddings", "environment"],
        ["anthropic", "environment"],
        ["dev-embed", "built-in"],
        ["dev-echo", "built-in"],
      ]);
      for (const secret of [...Object.values(secrets), "SECRET", "10.9.8.7"]) expect(listed.text).not.toContain(secret);
    } finally {
      await server.stop();
      if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
  });
});

const canary = () => `sk-canary-${Math.random().toString(36).slice(2)}-${Date.now()}`;

type ProviderBody = { id: string; kind: string; baseUrl: string; apiKeySecret: string; models: Array<Record<string, unknown>> };

const providerBody = (overrides: Partial<ProviderBody> = {}): ProviderBody => ({
  id: "local-llm",
  kind: "openai-compatible",
  baseUrl: "http://127.0.0.1:11434/v1",
  apiKeySecret: "llm.key",
  models: [{ name: "llama3.1:8b", contextTokens: 128000, features: ["tool-use"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 }, { name: "qwen2.5" }],
  ...overrides,
});

/** A tenant with a stored secret named `llm.key`; returns the secret's value too. */
async function tenantWithSecret() {
  const tenant = await newTenant();
  const value = canary();
  expect((await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "llm.key", value } })).status).toBe(201);
  return { ...tenant, secretValue: value };
}

const listIds = async (key: string) => (await call("GET", "/v1/providers", { key })).body.data.map((p: { id: string }) => p.id);

const agentDraft = (overrides: Record<string, unknown> = {}) => ({ id: "p.agent", version: "1.0.0", name: "P", instructions: "Hi", capabilities: [{}], tools: [], retrieval: [], guardrails: [], ...overrides });

describe("POST /v1/providers, GET and DELETE /v1/providers/{providerId}", () => {
  it("configures a tenant provider whose key is a secret; lists it first (source tenant); shows, then deletes it", async () => {
    const tenant = await tenantWithSecret();
    const created = await call("POST", "/v1/providers", { key: tenant.key, body: providerBody() });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: "local-llm",
      kind: "openai-compatible",
      capabilityKind: "llm-inference",
      source: "tenant",
      baseUrl: "http://127.0.0.1:11434/v1",
      apiKeySecret: "llm.key",
      projectIds: null,
      models: [
        { name: "llama3.1:8b", contextTokens: 128000, features: ["tool-use"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
        { name: "qwen2.5", features: [] },
      ],
      createdBy: tenant.adminUserId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const second = await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ id: "b.anthropic", kind: "anthropic", baseUrl: "HTTPS://LLM.Example.test", models: [{ name: "claude-haiku-4-5" }] }) });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ id: "b.anthropic", kind: "anthropic", baseUrl: "https://llm.example.test/" });

    const list = await call("GET", "/v1/providers", { key: tenant.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string; source: string }) => [p.id, p.source])).toEqual([
      ["local-llm", "tenant"],
      ["b.anthropic", "tenant"],
      ["scripted", "built-in"],
      ["dev-embed", "built-in"],
      ["dev-echo", "built-in"],
    ]);
    expect(list.body.data[0]).toEqual({ id: "local-llm", kind: "openai-compatible", capabilityKind: "llm-inference", source: "tenant", baseUrl: "http://127.0.0.1:11434/v1", apiKeySecret: "llm.key", projectIds: null, models: created.body.models });
    expect(list.body.data[3]).not.toHaveProperty("baseUrl");
    const paged = (await call("GET", "/v1/providers?limit=1", { key: tenant.key })).body;
    expect(paged).toMatchObject({ data: [{ id: "local-llm" }], hasMore: true });
    expect((await call("GET", `/v1/providers?limit=2&cursor=${paged.nextCursor}`, { key: tenant.key })).body.data.map((p: { id: string }) => p.id)).toEqual(["b.anthropic", "scripted"]);

    const one = await call("GET", "/v1/providers/local-llm", { key: tenant.key });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);
    for (const response of [created, second, list, one]) expect(response.text).not.toContain(tenant.secretValue);

    const deleted = await call("DELETE", "/v1/providers/local-llm", { key: tenant.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: "local-llm", deleted: true });
    expectError(await call("GET", "/v1/providers/local-llm", { key: tenant.key }), 404, "not-found");
    expectError(await call("DELETE", "/v1/providers/local-llm", { key: tenant.key }), 404, "not-found");
    expect(await listIds(tenant.key)).toEqual(["b.anthropic", "scripted", "dev-embed", "dev-echo"]);
    // The secret stays, and the id can be configured again.
    expect((await call("GET", "/v1/secrets", { key: tenant.key })).body.data.map((s: { name: string }) => s.name)).toEqual(["llm.key"]);
    expect((await call("POST", "/v1/providers", { key: tenant.key, body: providerBody() })).status).toBe(201);
    expect(await listIds(tenant.key)).toEqual(["b.anthropic", "local-llm", "scripted", "dev-embed", "dev-echo"]);
  });

  it("replays POST and DELETE with the same Idempotency-Key", async () => {
    const tenant = await tenantWithSecret();
    const headers = { "Idempotency-Key": "provider-1" };
    const first = await call("POST", "/v1/providers", { key: tenant.key, body: providerBody(), headers });
    const again = await call("POST", "/v1/providers", { key: tenant.key, body: providerBody(), headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("x-idempotent-replay")).toBe("true");
    expect(again.text).toBe(first.text);
    expectError(await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ id: "other" }), headers }), 409, "idempotency-key-body-mismatch");
    const removed = await call("DELETE", "/v1/providers/local-llm", { key: tenant.key, headers: { "Idempotency-Key": "delete-1" } });
    const removedAgain = await call("DELETE", "/v1/providers/local-llm", { key: tenant.key, headers: { "Idempotency-Key": "delete-1" } });
    expect([removed.status, removedAgain.status]).toEqual([200, 200]);
    expect(removedAgain.headers.get("x-idempotent-replay")).toBe("true");
    expect(await listIds(tenant.key)).toEqual(["scripted", "dev-embed", "dev-echo"]);
  });

  it("409 for a built-in or environment id and for an id the tenant has; 404 for a secret the tenant does not have", async () => {
    const tenant = await tenantWithSecret();
    for (const id of ["dev-echo", "scripted", "openai", "anthropic"]) {
      const error = expectError(await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ id }) }), 409, "provider-already-registered");
      expect(error.details).toEqual({ providerId: id });
    }
    expect((await call("POST", "/v1/providers", { key: tenant.key, body: providerBody() })).status).toBe(201);
    expectError(await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ baseUrl: "https://elsewhere.example.test/v1" }) }), 409, "provider-already-registered");
    expectError(await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ id: "second", apiKeySecret: "no.such.secret" }) }), 404, "secret-not-found");
    await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "gone", value: canary() } });
    await call("DELETE", "/v1/secrets/gone", { key: tenant.key });
    expectError(await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ id: "third", apiKeySecret: "gone" }) }), 404, "secret-not-found");
    expect(await listIds(tenant.key)).toEqual(["local-llm", "scripted", "dev-embed", "dev-echo"]);
    expect((await call("GET", "/v1/providers/local-llm", { key: tenant.key })).body.baseUrl).toBe("http://127.0.0.1:11434/v1");
    for (const id of ["dev-echo", "scripted", "openai", "anthropic", "second", "unknown"]) {
      expectError(await call("GET", `/v1/providers/${id}`, { key: tenant.key }), 404, "not-found");
      expectError(await call("DELETE", `/v1/providers/${id}`, { key: tenant.key }), 404, "not-found");
    }
    for (const id of ["Bad", "a%20b", "-x", "x".repeat(64)]) expectError(await call("GET", `/v1/providers/${id}`, { key: tenant.key }), 400, "bad-input");
  });

  it("400 validation-failed with a JSON pointer for every problem; unknown fields and non-objects are refused; nothing is stored", async () => {
    const tenant = await tenantWithSecret();
    const invalid = expectError(
      await call("POST", "/v1/providers", {
        key: tenant.key,
        body: { id: "Not Valid", kind: "scripted", baseUrl: "https://user:pw@llm.example.test/v1", apiKeySecret: "bad name", models: [{ name: "a", features: ["tool_use"], contextTokens: -1 }, { name: "a" }, { price: 1 }] },
      }),
      400,
      "validation-failed",
    );
    expect(invalid.details.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(
      ["/id", "/kind", "/baseUrl", "/apiKeySecret", "/models/0/features/0", "/models/0/contextTokens", "/models/1/name", "/models/2/name", "/models/2/price"].sort(),
    );
    expect(invalid.details.issues.find((issue: { path: string }) => issue.path === "/baseUrl").message).toContain("credentials");
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ ...providerBody(), models: [] }, ["/models"]],
      [{ ...providerBody(), models: Array.from({ length: 51 }, (_, i) => ({ name: `m${i}` })) }, ["/models"]],
      [{ ...providerBody(), baseUrl: "llm.example.test/v1" }, ["/baseUrl"]],
      [{ ...providerBody(), baseUrl: "https://llm.example.test/v1#frag" }, ["/baseUrl"]],
      [{ ...providerBody(), baseUrl: "https://llm.example.test/v1?key=1" }, ["/baseUrl"]],
      [{ ...providerBody(), baseUrl: "file:///etc/passwd" }, ["/baseUrl"]],
      [{ id: "x" }, ["/apiKeySecret", "/baseUrl", "/kind", "/models"]],
    ];
    for (const [body, paths] of cases) {
      const error = expectError(await call("POST", "/v1/providers", { key: tenant.key, body }), 400, "validation-failed");
      expect(error.details.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(paths);
    }
    expectError(await call("POST", "/v1/providers", { key: tenant.key, body: { ...providerBody(), apiKey: "sk-inline" } }), 400, "unknown-field");
    expectError(await call("POST", "/v1/providers", { key: tenant.key, body: [providerBody()] }), 400, "bad-input");
    expectError(await call("POST", "/v1/providers", { key: tenant.key, rawBody: "{", headers: { "Content-Type": "application/json" } }), 400, "bad-input");
    expect(await listIds(tenant.key)).toEqual(["scripted", "dev-embed", "dev-echo"]);
  });

  it("refuses cloud metadata and link-local addresses even though this server allows private ones", async () => {
    const tenant = await tenantWithSecret();
    const refused = ["http://169.254.169.254/latest", "http://[fd00:ec2::254]/", "http://metadata.google.internal/computeMetadata/v1", "http://169.254.1.2:8080/v1", "http://[fe80::1]/v1", "http://[::ffff:169.254.169.254]/", "http://0.0.0.0:11434/v1"];
    for (const [index, baseUrl] of refused.entries()) {
      const error = expectError(await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ id: `m${index}`, baseUrl }) }), 400, "validation-failed");
      expect(error.details.issues).toEqual([{ path: "/baseUrl", message: expect.stringMatching(/may never/) }]);
    }
    expect(await listIds(tenant.key)).toEqual(["scripted", "dev-embed", "dev-echo"]);
    // Loopback and private addresses pass here: the test server runs with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1.
    for (const [index, baseUrl] of ["http://127.0.0.1:11434/v1", "http://localhost:1234/v1", "http://10.0.0.8/v1", "http://192.168.1.20:8000/v1", "http://[::1]:9000/v1"].entries()) {
      expect((await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ id: `p${index}`, baseUrl }) })).status).toBe(201);
    }
  });

  it("only tenant admins configure and delete; members and viewers read", async () => {
    const tenant = await tenantWithSecret();
    expect((await call("POST", "/v1/providers", { key: tenant.key, body: providerBody() })).status).toBe(201);
    for (const role of ["member", "viewer"]) {
      const token = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: role, serviceAccount: { name: role, role } } });
      expect(token.status).toBe(201);
      const key = token.body.key as string;
      expectError(await call("POST", "/v1/providers", { key, body: providerBody({ id: `by-${role}` }) }), 403, "permission-denied");
      expectError(await call("DELETE", "/v1/providers/local-llm", { key }), 403, "permission-denied");
      expect((await call("GET", "/v1/providers/local-llm", { key })).body).toMatchObject({ id: "local-llm", baseUrl: "http://127.0.0.1:11434/v1", apiKeySecret: "llm.key" });
      expect(await listIds(key)).toEqual(["local-llm", "scripted", "dev-embed", "dev-echo"]);
    }
    expectError(await call("POST", "/v1/providers", { body: providerBody() }), 401, "auth-missing");
  });

  it("keeps another tenant's providers invisible: 404, not listed, not routed; the same id is free in each tenant", async () => {
    const owner = await tenantWithSecret();
    const stranger = await tenantWithSecret();
    expect((await call("POST", "/v1/providers", { key: owner.key, body: providerBody() })).status).toBe(201);
    expectError(await call("GET", "/v1/providers/local-llm", { key: stranger.key }), 404, "not-found");
    expectError(await call("DELETE", "/v1/providers/local-llm", { key: stranger.key }), 404, "not-found");
    expect(await listIds(stranger.key)).toEqual(["scripted", "dev-embed", "dev-echo"]);
    const routed = await call("POST", "/v1/agents/validate", { key: stranger.key, body: agentDraft({ preferredProvider: "local-llm" }) });
    expect(routed.body.routing).toMatchObject({ providerId: "dev-echo" });
    expect(routed.body.routing.reason).toContain('preferred provider "local-llm" is not configured');
    expect((await call("POST", "/v1/providers", { key: stranger.key, body: providerBody({ baseUrl: "https://stranger.example.test/v1" }) })).status).toBe(201);
    expect((await call("GET", "/v1/providers/local-llm", { key: owner.key })).body.baseUrl).toBe("http://127.0.0.1:11434/v1");
    expect((await call("GET", "/v1/providers/local-llm", { key: stranger.key })).body.baseUrl).toBe("https://stranger.example.test/v1");
  });

  it("routes POST /v1/agents/validate to the tenant's provider: preferred by name, and first in routing order", async () => {
    const tenant = await tenantWithSecret();
    await call("POST", "/v1/providers", { key: tenant.key, body: providerBody() });
    await call("POST", "/v1/providers", { key: tenant.key, body: providerBody({ id: "second", models: [{ name: "big", features: ["tool-use", "json-output"] }] }) });
    const preferred = await call("POST", "/v1/agents/validate", { key: tenant.key, body: agentDraft({ preferredProvider: "second" }) });
    expect(preferred.status).toBe(200);
    expect(preferred.body.valid).toBe(true);
    expect(preferred.body.routing).toMatchObject({ providerId: "second", model: "big", reason: expect.stringContaining('preferred provider "second"') });
    const withModel = await call("POST", "/v1/agents/validate", { key: tenant.key, body: agentDraft({ preferredProvider: "local-llm", preferredModel: "qwen2.5" }) });
    expect(withModel.body.routing).toMatchObject({ providerId: "local-llm", model: "qwen2.5" });
    expect((await call("POST", "/v1/agents/validate", { key: tenant.key, body: agentDraft() })).body.routing).toMatchObject({ providerId: "local-llm", model: "llama3.1:8b" });
    const needsJson = await call("POST", "/v1/agents/validate", { key: tenant.key, body: agentDraft({ capabilities: [{ needs: [{ feature: "structured-output" }] }] }) });
    expect(needsJson.body.routing).toMatchObject({ providerId: "second", model: "big" });
    expect(preferred.text).not.toContain(tenant.secretValue);
    await call("DELETE", "/v1/providers/second", { key: tenant.key });
    const afterDelete = await call("POST", "/v1/agents/validate", { key: tenant.key, body: agentDraft({ preferredProvider: "second" }) });
    expect(afterDelete.body.routing).toMatchObject({ providerId: "local-llm" });
    expect(afterDelete.body.routing.reason).toContain('preferred provider "second" is not configured');
  });
});

describe("instantiateProvider for a tenant provider (in this process, against its own database and a local wire server)", () => {
  const saved = { ...process.env };
  let cleanup: () => Promise<void> = async () => {};
  let wire: WireServer;

  beforeAll(async () => {
    // A database of this test's own (the server's embedded one belongs to the server process), migrated as `npm start` does.
    process.env.KINDGI_SECRETS_KEY = randomBytes(32).toString("base64");
    if (kindgi().backend === "postgresql") {
      const database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL!);
      await runMigrations({ command: "deploy", databaseUrl: database.url });
      process.env.DATABASE_URL = database.url;
      cleanup = database.drop;
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-providers-"));
      process.env.KINDGI_DATA_DIR = path.join(dir, "pgdata");
      delete process.env.DATABASE_URL;
      await runMigrations({ command: "deploy", dataDir: process.env.KINDGI_DATA_DIR });
      cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
    }
    wire = await startWireServer();
  });

  afterAll(async () => {
    await wire?.close();
    await cleanup();
    for (const name of ["KINDGI_SECRETS_KEY", "DATABASE_URL", "KINDGI_DATA_DIR", "KINDGI_ALLOW_PRIVATE_PROVIDER_URLS"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  const ask = (model: string): ModelRequest => ({ model, messages: [{ role: "user", content: "hello" }], tools: [], callIndex: 0 });
  const completion = (text: string) => ({ json: { id: "c", object: "chat.completion", model: "m", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { prompt_tokens: 1000, completion_tokens: 500 } } });

  async function adminOf(): Promise<Actor> {
    const created = await createTenant({ name: "in-process providers" });
    return { tenantId: created.tenant.id, userId: created.admin.id, apiKeyId: null, projectId: null, role: "admin", isService: false, callerId: created.admin.id };
  }

  async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ModelProviderError);
    return error as ModelProviderError;
  }

  it("a run's routing follows the tenant's providers: kept while they stay the same, changed by a registration and a deletion", async () => {
    const created = await createTenant({ name: "in-process routing" });
    const actor: Actor = { tenantId: created.tenant.id, userId: created.admin.id, apiKeyId: null, projectId: null, role: "admin", isService: false, callerId: created.admin.id };
    const scope = { tenantId: actor.tenantId, projectId: created.project.id, conversationId: null, runId: "route-test", userId: actor.userId };
    const definition = { capabilities: [{ kind: "llm-inference" }], tools: [], preferredProvider: "wire" } as unknown as AgentDefinition;
    const before = await dbKernelEnvironment.route(scope, definition);
    expect(before).toMatchObject({ providerId: "dev-echo" });
    expect(await dbKernelEnvironment.route(scope, definition)).toBe(before);
    await putSecret(actor, { name: "wire.key", value: canary() });
    await registerModelProvider(actor, { id: "wire", kind: "openai-compatible", baseUrl: "https://wire.example.test/v1", apiKeySecret: "wire.key", models: [{ name: "wire-model", features: [] }] });
    expect(await dbKernelEnvironment.route(scope, definition)).toMatchObject({ providerId: "wire", model: "wire-model" });
    await deleteModelProvider(actor, "wire");
    expect(await dbKernelEnvironment.route(scope, definition)).toMatchObject({ providerId: "dev-echo" });
  });

  it("calls the provider with the secret's current value, resolved on every call; refuses when the secret is gone or the URL is no longer allowed", async () => {
    process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS = "1";
    const actor = await adminOf();
    const firstKey = canary();
    await putSecret(actor, { name: "wire.key", value: firstKey });
    await registerModelProvider(actor, { id: "wire", kind: "openai-compatible", baseUrl: `${wire.url}/v1`, apiKeySecret: "wire.key", models: [{ name: "wire-model", features: ["tool-use"], inputUsdPerMTok: 1, outputUsdPerMTok: 2 }] });
    const providers = await providersForProject(actor.tenantId, null, {} as NodeJS.ProcessEnv);
    expect(providers.map((p) => [p.id, p.source])).toEqual([["wire", "tenant"], ["dev-embed", "built-in"], ["dev-echo", "built-in"]]);
    expect(JSON.stringify(providers)).not.toContain(firstKey);

    const provider = await instantiateProvider(actor.tenantId, providers[0]);
    expect(provider).toMatchObject({ id: "wire", kind: "openai-compatible" });
    wire.enqueue(completion("first answer"), completion("second answer"));
    expect(await provider.complete(ask("wire-model"))).toMatchObject({ text: "first answer", usage: { inputTokens: 1000, outputTokens: 500 }, costUsd: 0.002 });
    expect(wire.requests[0]).toMatchObject({ path: "/v1/chat/completions", headers: { authorization: `Bearer ${firstKey}` } });

    // A new version of the secret is used from the next call on, by the same provider instance.
    const secondKey = canary();
    await putSecret(actor, { name: "wire.key", value: secondKey });
    expect((await provider.complete(ask("wire-model"))).text).toBe("second answer");
    expect(wire.requests[1].headers.authorization).toBe(`Bearer ${secondKey}`);

    await deleteSecret(actor, "wire.key");
    const gone = await failure(provider.complete(ask("wire-model")));
    expect(gone).toMatchObject({ code: "provider-auth-failed", attempts: 0 });
    expect(gone.message).toContain('"wire.key"');
    expect(wire.requests).toHaveLength(2);

    await putSecret(actor, { name: "wire.key", value: secondKey });
    delete process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS;
    const refused = await failure(provider.complete(ask("wire-model")));
    expect(refused).toMatchObject({ code: "provider-request-failed", attempts: 0 });
    expect(refused.message).toContain("127.0.0.1 is a loopback address");
    expect(wire.requests).toHaveLength(2);
    for (const error of [gone, refused]) {
      expect(error.message).not.toContain(firstKey);
      expect(error.message).not.toContain(secondKey);
    }
  });

  it("sends an Anthropic tenant provider's key as x-api-key, and checks every address its host name resolves to", async () => {
    process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS = "1";
    const actor = await adminOf();
    const key = canary();
    await putSecret(actor, { name: "claude", value: key });
    await registerModelProvider(actor, { id: "claude-proxy", kind: "anthropic", baseUrl: `http://localhost:${new URL(wire.url).port}`, apiKeySecret: "claude", models: [{ name: "claude-haiku-4-5" }] });
    const [descriptor] = await providersForProject(actor.tenantId, null, {} as NodeJS.ProcessEnv);
    expect(descriptor).toMatchObject({ id: "claude-proxy", source: "tenant", apiKeySecret: "claude" });

    const sent = wire.requests.length;
    const lookup = async () => [{ address: "127.0.0.1", family: 4 as const }, { address: "169.254.169.254", family: 4 as const }];
    const poisoned = await instantiateProvider(actor.tenantId, descriptor, { lookup });
    expect((await failure(poisoned.complete(ask("claude-haiku-4-5")))).message).toContain("169.254.169.254 (an address of localhost) is a cloud metadata address");
    expect(wire.requests).toHaveLength(sent);

    // The system resolver: localhost is loopback, allowed while KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1.
    const provider = await instantiateProvider(actor.tenantId, descriptor);
    wire.enqueue({ json: { id: "msg_1", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [{ type: "text", text: "hello from claude" }], stop_reason: "end_turn", usage: { input_tokens: 3, output_tokens: 4 } } });
    expect(await provider.complete(ask("claude-haiku-4-5"))).toMatchObject({ text: "hello from claude", usage: { inputTokens: 3, outputTokens: 4 } });
    expect(wire.requests[sent]).toMatchObject({ path: "/v1/messages", headers: { "x-api-key": key } });
  });

  it("connects a call to the address its check allowed, whatever DNS answers after (pinned)", async () => {
    process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS = "1";
    const actor = await adminOf();
    await putSecret(actor, { name: "pinned-key", value: canary() });
    // A host name the system cannot resolve: the call reaches the wire server only through the checked address.
    await registerModelProvider(actor, { id: "pinned-proxy", kind: "anthropic", baseUrl: `http://pinned-provider.test:${new URL(wire.url).port}`, apiKeySecret: "pinned-key", models: [{ name: "claude-haiku-4-5" }] });
    const descriptor = (await providersForProject(actor.tenantId, null, {} as NodeJS.ProcessEnv)).find((candidate) => candidate.id === "pinned-proxy");
    expect(descriptor).toBeDefined();
    const asked: string[] = [];
    const lookup = async (hostname: string) => {
      asked.push(hostname);
      return [{ address: "127.0.0.1", family: 4 as const }];
    };
    const provider = await instantiateProvider(actor.tenantId, descriptor!, { lookup });
    const sent = wire.requests.length;
    for (const text of ["first", "second"]) {
      wire.enqueue({ json: { id: `msg_${text}`, type: "message", role: "assistant", model: "claude-haiku-4-5", content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } } });
      expect(await provider.complete(ask("claude-haiku-4-5"))).toMatchObject({ text });
    }
    expect(wire.requests.slice(sent).map((request) => request.headers.host)).toEqual([`pinned-provider.test:${new URL(wire.url).port}`, `pinned-provider.test:${new URL(wire.url).port}`]);
    // One check a call, each through the resolver given (the system resolver would not know the name).
    expect(asked).toEqual(["pinned-provider.test", "pinned-provider.test"]);
  });

  it("a tenant embedding provider (kind openai-compatible-embeddings) becomes the project's default embedding route and embeds with the secret's key", async () => {
    process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS = "1";
    const actor = await adminOf();
    const key = canary();
    const embeddings = await startEmbeddingsServer({ apiKey: key, faults: { 1: { status: 429, headers: { "retry-after": "0" } } } });
    try {
      expect(defaultEmbeddingRoute(await providersForProject(actor.tenantId, null, {} as NodeJS.ProcessEnv))).toMatchObject({ providerId: "dev-embed", model: "dev-embed" });
      await putSecret(actor, { name: "embed.key", value: key });
      const view = await registerModelProvider(actor, { id: "local-embed", kind: "openai-compatible-embeddings", baseUrl: embeddings.baseUrl, apiKeySecret: "embed.key", models: [{ name: "nomic-embed-text", dimensions: 6, inputUsdPerMTok: 1 }] });
      expect(view).toMatchObject({ id: "local-embed", kind: "openai-compatible-embeddings", capabilityKind: "embedding", models: [{ name: "nomic-embed-text", dimensions: 6, inputUsdPerMTok: 1, features: [] }] });
      const providers = await providersForProject(actor.tenantId, null, {} as NodeJS.ProcessEnv);
      const route = defaultEmbeddingRoute(providers);
      expect(route).toMatchObject({ providerId: "local-embed", model: "nomic-embed-text" });
      // The turn's model is not routed to it.
      expect(routeCapability({ capabilities: [{}, { kind: "embedding" }], tools: [] }, providers)).toMatchObject({ providerId: "dev-echo" });

      const descriptor = providers.find((provider) => isRouted(route) && provider.id === route.providerId)!;
      const provider = await instantiateEmbeddingProvider(actor.tenantId, descriptor);
      const inputs = ["the invoice is overdue", "billing moved to email", "customer prefers phone"];
      const answer = await provider.embed({ model: "nomic-embed-text", inputs });
      // A 429 first, then the answer (the transport's retries).
      expect(answer).toMatchObject({ dimensions: 6, attempts: 2, model: "nomic-embed-text" });
      expect(answer.vectors).toEqual(inputs.map((text) => wireEmbedding(text, 6)));
      expect(answer.costUsd).toBeGreaterThan(0);
      expect(embeddings.requests.map((request) => [request.headers.authorization, request.status, request.inputs?.length])).toEqual([[`Bearer ${key}`, 429, 3], [`Bearer ${key}`, 200, 3]]);

      delete process.env.KINDGI_ALLOW_PRIVATE_PROVIDER_URLS;
      const refused = await failure(provider.embed({ model: "nomic-embed-text", inputs: ["x"] }));
      expect(refused).toMatchObject({ code: "provider-request-failed", attempts: 0 });
      expect(embeddings.requests).toHaveLength(2);
    } finally {
      await embeddings.close();
    }
  });
});
