import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "./helpers/api";
import { newOperatorToken, startServer } from "./helpers/server";

describe("GET /v1/providers", () => {
  it("lists scripted and dev-echo (the test server has KINDGI_DEV_PROVIDERS=1), dev-echo last", async () => {
    const tenant = await newTenant();
    const response = await call("GET", "/v1/providers", { key: tenant.key });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const ids = response.body.data.map((provider: { id: string }) => provider.id);
    expect(ids.slice(-2)).toEqual(["scripted", "dev-echo"]);
    expect(response.body.hasMore).toBe(false);
    const byId = Object.fromEntries(response.body.data.map((provider: { id: string }) => [provider.id, provider]));
    expect(byId["dev-echo"]).toEqual({ id: "dev-echo", kind: "dev-echo", source: "built-in", models: [{ name: "dev-echo", features: ["tool-use"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 }] });
    expect(byId.scripted).toEqual({ id: "scripted", kind: "scripted", source: "built-in", models: [{ name: "scripted", features: ["tool-use", "json-output"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 }] });
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
        ["anthropic", "anthropic", "environment"],
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
    } finally {
      await server.stop();
      if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
  });
});
