import { describe, expect, it } from "vitest";
import { call, expectError, kindgi, newTenant, toolManifest } from "./helpers/api";

describe("/v1 conventions", () => {
  it("answers every response with X-Request-Id and Cache-Control: no-store", async () => {
    const tenant = await newTenant();
    for (const response of [
      await call("GET", "/v1/projects", { key: tenant.key }),
      await call("GET", "/v1/projects"),
      await call("GET", "/v1/no-such-route", { key: tenant.key }),
      await call("GET", "/v1/openapi.json"),
    ]) {
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-type")).toContain("application/json");
    }
  });

  it("refuses missing, malformed, unknown and revoked credentials with 401", async () => {
    expectError(await call("GET", "/v1/tools"), 401, "auth-missing");
    expectError(await call("GET", "/v1/tools", { headers: { Authorization: "Basic abc" } }), 401, "auth-invalid");
    expectError(await call("GET", "/v1/tools", { key: "not-a-key" }), 401, "auth-invalid");
    expectError(await call("GET", "/v1/tools", { key: "kgi_" + "A".repeat(40) }), 401, "auth-invalid");
    const tenant = await newTenant();
    const minted = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "short-lived" } });
    expect(minted.status).toBe(201);
    expect((await call("GET", "/v1/tools", { key: minted.body.key })).status).toBe(200);
    expect((await call("POST", `/v1/tokens/${minted.body.id}/revoke`, { key: tenant.key })).status).toBe(200);
    expectError(await call("GET", "/v1/tools", { key: minted.body.key }), 401, "auth-revoked");
  });

  it("refuses bad JSON, non-object bodies and unknown fields with 400", async () => {
    const tenant = await newTenant();
    expectError(await call("POST", "/v1/projects", { key: tenant.key, rawBody: "{not json", headers: { "Content-Type": "application/json" } }), 400, "bad-input");
    expectError(await call("POST", "/v1/projects", { key: tenant.key, body: [1, 2] }), 400, "bad-input");
    expectError(await call("POST", "/v1/projects", { key: tenant.key, rawBody: "" }), 400, "bad-input");
    const unknown = expectError(await call("POST", "/v1/projects", { key: tenant.key, body: { name: "x", colour: "red" } }), 400, "unknown-field");
    expect(unknown.details.issues).toEqual([{ path: "/colour", message: 'unknown field "colour"' }]);
    expectError(await call("POST", `/v1/tokens/00000000-0000-4000-8000-000000000000/revoke`, { key: tenant.key, body: { why: "x" } }), 400, "unknown-field");
    expectError(await call("GET", "/v1/tools?colour=red", { key: tenant.key }), 400, "unknown-field");
    expectError(await call("GET", "/v1/tools?mutating=perhaps", { key: tenant.key }), 400, "bad-input");
  });

  it("refuses malformed ids with 400 before looking anything up", async () => {
    const tenant = await newTenant();
    expectError(await call("GET", "/v1/projects/not-a-uuid", { key: tenant.key }), 400, "bad-input");
    expectError(await call("POST", "/v1/tokens/123/revoke", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/tools/x/versions/1.0", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", `/v1/tools/${"a".repeat(201)}`, { key: tenant.key }), 400, "bad-input");
  });

  it("answers unknown routes with the JSON envelope", async () => {
    const tenant = await newTenant();
    expectError(await call("GET", "/v1/nothing/here", { key: tenant.key }), 404, "not-found");
    expectError(await call("DELETE", "/v1/tools/a/b/c/d/e", { key: tenant.key }), 404, "not-found");
  });

  it("answers a method the route does not serve with 405 and Allow", async () => {
    const tenant = await newTenant();
    const response = await call("DELETE", "/v1/tools", { key: tenant.key });
    expectError(response, 405, "method-not-allowed");
    expect(response.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expectError(await call("PUT", "/v1/tools/acme.x/versions/1.0.0", { key: tenant.key }), 405, "method-not-allowed");
    expectError(await call("GET", "/v1/tokens/00000000-0000-4000-8000-000000000000/revoke", { key: tenant.key }), 405, "method-not-allowed");
  });

  it("refuses bodies over 1 MiB with 413", async () => {
    const tenant = await newTenant();
    const big = { name: "x".repeat(1024 * 1024 + 10) };
    expectError(await call("POST", "/v1/projects", { key: tenant.key, body: big }), 413, "payload-too-large");
  });

  it("paginates with limit and an opaque cursor, and refuses bad ones", async () => {
    const tenant = await newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const manifest = toolManifest({ id: `page.tool-${i}` });
      expect((await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } })).status).toBe(201);
      ids.push(manifest.id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call("GET", `/v1/tools?limit=3${cursor ? `&cursor=${cursor}` : ""}`, { key: tenant.key });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((tool: { toolId: string }) => tool.toolId));
      expect(page.body.hasMore).toBe(page.body.nextCursor !== undefined);
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    // The three built-in tools are listed with the registered ones, in the id order.
    expect(pages).toBe(4);
    expect(seen).toEqual([...ids, "current-time", "recall", "remember"].sort());
    expect((await call("GET", "/v1/tools", { key: tenant.key })).body.data).toHaveLength(10);
    expectError(await call("GET", "/v1/tools?limit=0", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/tools?limit=101", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/tools?limit=abc", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/tools?cursor=%%%", { key: tenant.key }), 400, "bad-input");
    expectError(await call("GET", "/v1/tools?cursor=bm90LWpzb24", { key: tenant.key }), 400, "bad-input");
  });

  it("GET /health is public and names the database", async () => {
    const response = await call("GET", "/health");
    expect(response.status).toBe(200);
    expect(response.body.status).toBe("ok");
    expect(response.body.database.kind).toBe(kindgi().backend);
    expect(response.text).not.toMatch(/password|app:app/);
  });
});

describe("Idempotency-Key", () => {
  it("replays the first success byte for byte, without running the handler again", async () => {
    const tenant = await newTenant();
    const body = { name: "idempotent project" };
    const first = await call("POST", "/v1/projects", { key: tenant.key, body, headers: { "Idempotency-Key": "k-1" } });
    expect(first.status).toBe(201);
    expect(first.headers.get("x-idempotent-replay")).toBeNull();
    const again = await call("POST", "/v1/projects", { key: tenant.key, body, headers: { "Idempotency-Key": "k-1" } });
    expect(again.status).toBe(201);
    expect(again.headers.get("x-idempotent-replay")).toBe("true");
    expect(again.text).toBe(first.text);
    const projects = await call("GET", "/v1/projects", { key: tenant.key });
    expect(projects.body.data.filter((p: { name: string }) => p.name === "idempotent project")).toHaveLength(1);
    // Without the key the handler does run: the name is taken now.
    expectError(await call("POST", "/v1/projects", { key: tenant.key, body }), 409, "project-name-taken");
  });

  it("refuses the same key with a different body", async () => {
    const tenant = await newTenant();
    expect((await call("POST", "/v1/projects", { key: tenant.key, body: { name: "a" }, headers: { "Idempotency-Key": "k-2" } })).status).toBe(201);
    expectError(await call("POST", "/v1/projects", { key: tenant.key, body: { name: "b" }, headers: { "Idempotency-Key": "k-2" } }), 409, "idempotency-key-body-mismatch");
  });

  it("scopes keys to the caller and the path", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    expect((await call("POST", "/v1/projects", { key: tenant.key, body: { name: "scoped" }, headers: { "Idempotency-Key": "shared" } })).status).toBe(201);
    const second = await call("POST", "/v1/projects", { key: other.key, body: { name: "scoped" }, headers: { "Idempotency-Key": "shared" } });
    expect(second.status).toBe(201);
    expect(second.headers.get("x-idempotent-replay")).toBeNull();
    const otherPath = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "scoped" }, headers: { "Idempotency-Key": "shared" } });
    expect(otherPath.status).toBe(201);
  });

  it("does not store errors: the same key can be retried after a failure", async () => {
    const tenant = await newTenant();
    const bad = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "" }, headers: { "Idempotency-Key": "k-3" } });
    expectError(bad, 400, "bad-input");
    const badAgain = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "" }, headers: { "Idempotency-Key": "k-3" } });
    expectError(badAgain, 400, "bad-input");
    expect(badAgain.headers.get("x-idempotent-replay")).toBeNull();
    expect((await call("POST", "/v1/projects", { key: tenant.key, body: { name: "fixed" }, headers: { "Idempotency-Key": "k-3" } })).status).toBe(201);
  });

  it("never replays a response that carried a secret", async () => {
    const tenant = await newTenant();
    const first = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "ci" }, headers: { "Idempotency-Key": "k-4" } });
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^kgi_/);
    const again = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: "ci" }, headers: { "Idempotency-Key": "k-4" } });
    const error = expectError(again, 409, "idempotency-key-replay-withheld");
    expect(again.text).not.toContain(first.body.key);
    expect(JSON.stringify(error)).not.toContain("kgi_");
    const keys = await call("GET", "/v1/tokens", { key: tenant.key });
    expect(keys.body.data.filter((k: { name: string }) => k.name === "ci")).toHaveLength(1);
  });

  it("refuses a malformed Idempotency-Key", async () => {
    const tenant = await newTenant();
    expectError(await call("POST", "/v1/projects", { key: tenant.key, body: { name: "z" }, headers: { "Idempotency-Key": "x".repeat(300) } }), 400, "bad-input");
  });

  it("50 concurrent identical POST /v1/tools with one key create exactly one tool", async () => {
    const tenant = await newTenant();
    const body = { ...toolManifest(), projectId: tenant.projectId };
    const responses = await Promise.all(Array.from({ length: 50 }, () => call("POST", "/v1/tools", { key: tenant.key, body, headers: { "Idempotency-Key": "burst" } })));
    const originals = responses.filter((r) => r.status === 201 && r.headers.get("x-idempotent-replay") === null);
    const replays = responses.filter((r) => r.status === 201 && r.headers.get("x-idempotent-replay") === "true");
    const inFlight = responses.filter((r) => r.status === 409);
    expect(originals).toHaveLength(1);
    expect(replays.length + inFlight.length).toBe(49);
    for (const replay of replays) expect(replay.text).toBe(originals[0].text);
    for (const busy of inFlight) {
      expectError(busy, 409, "idempotency-key-in-flight");
      expect(Number(busy.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    const versions = await call("GET", `/v1/tools/${body.id}/versions`, { key: tenant.key });
    expect(versions.body.data).toHaveLength(1);
    const list = await call("GET", `/v1/tools?q=${encodeURIComponent(body.id)}`, { key: tenant.key });
    expect(list.body.data).toHaveLength(1);
  });
});
