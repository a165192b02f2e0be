import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { call, expectError, kindgi, newTenant } from "./helpers/api";

const canary = () => `canary-${Math.random().toString(36).slice(2)}-${Date.now()}`;

describe("secrets", () => {
  it("stores versions, lists names and versions only, deletes; the value never comes back", async () => {
    const tenant = await newTenant();
    const first = canary();
    const second = canary();
    const created = await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "github.token", value: first } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "github.token", version: 1 });
    const again = await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "github.token", value: second } });
    expect(again.body.version).toBe(2);
    await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "another", value: canary() } });
    const list = await call("GET", "/v1/secrets", { key: tenant.key });
    expect(list.body.data.map((s: { name: string; version: number }) => [s.name, s.version])).toEqual([["another", 1], ["github.token", 2]]);
    for (const response of [created, again, list]) {
      expect(response.text).not.toContain(first);
      expect(response.text).not.toContain(second);
    }
    expect((await call("GET", "/v1/secrets?limit=1", { key: tenant.key })).body).toMatchObject({ data: [{ name: "another" }], hasMore: true });
    expect((await call("DELETE", "/v1/secrets/github.token", { key: tenant.key })).body).toEqual({ name: "github.token", deleted: true });
    expect((await call("GET", "/v1/secrets", { key: tenant.key })).body.data.map((s: { name: string }) => s.name)).toEqual(["another"]);
    expectError(await call("DELETE", "/v1/secrets/github.token", { key: tenant.key }), 404, "not-found");
    expect((await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "github.token", value: canary() } })).body.version).toBe(3);
  });

  it("refuses bad names and values without echoing the value", async () => {
    const tenant = await newTenant();
    const value = canary();
    for (const body of [{ name: "has space", value }, { name: "", value }, { name: "ok", value: "" }, { name: "ok" }, { name: "ok", value, extra: 1 }, { name: "ok", value: 42 }]) {
      const response = await call("POST", "/v1/secrets", { key: tenant.key, body });
      expect(response.status).toBe(400);
      expect(response.text).not.toContain(value);
    }
    expectError(await call("DELETE", "/v1/secrets/bad%20name", { key: tenant.key }), 400, "bad-input");
  });

  it("only tenant admins write; another tenant's secrets are invisible and 404", async () => {
    const owner = await newTenant();
    const stranger = await newTenant();
    await call("POST", "/v1/secrets", { key: owner.key, body: { name: "shared-name", value: canary() } });
    expect((await call("GET", "/v1/secrets", { key: stranger.key })).body.data).toEqual([]);
    expectError(await call("DELETE", "/v1/secrets/shared-name", { key: stranger.key }), 404, "not-found");
    const member = await call("POST", "/v1/tokens", { key: owner.key, body: { name: "m", serviceAccount: { name: "member" } } });
    expectError(await call("POST", "/v1/secrets", { key: member.body.key, body: { name: "x", value: canary() } }), 403, "permission-denied");
    expectError(await call("DELETE", "/v1/secrets/shared-name", { key: member.body.key }), 403, "permission-denied");
    expect((await call("GET", "/v1/secrets", { key: owner.key })).body.data).toHaveLength(1);
  });
});

/** Every file under `dir` that holds `needle`, read as bytes (the embedded database's data pages and WAL). */
function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (fs.readFileSync(file).includes(needle)) found.push(file);
  }
  return found;
}

describe("secrets at rest", () => {
  it("are stored only as ciphertext", async () => {
    const tenant = await newTenant();
    const value = canary();
    const name = `at-rest-${Date.now()}`;
    await call("POST", "/v1/secrets", { key: tenant.key, body: { name, value } });
    const { backend, databaseUrl, dataDir } = kindgi();
    if (backend === "pglite") {
      // The name is stored in clear, so the scan can see what was written; the value must not be there.
      await expect.poll(() => filesContaining(dataDir!, name).length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(filesContaining(dataDir!, value)).toEqual([]);
      return;
    }
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT * FROM "Secret" WHERE "tenantId" = $1`, [tenant.tenantId]);
      expect(rows).toHaveLength(1);
      expect(rows[0].ciphertext).toMatch(/^v1:/);
      expect(JSON.stringify(rows)).not.toContain(value);
      const audit = await client.query(`SELECT * FROM "AuditEvent" WHERE "tenantId" = $1`, [tenant.tenantId]);
      expect(JSON.stringify(audit.rows)).not.toContain(value);
    } finally {
      await client.end();
    }
  });
});
