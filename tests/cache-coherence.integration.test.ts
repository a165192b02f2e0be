// Cached authentication and resolution against real servers: what one server changes is never served stale by itself,
// nor by another server on the same PostgreSQL database, from the very next request on (docs/api.md: "Caches and
// consistency").
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, expectError, kindgi, newTenant, toolManifest, type TestTenant } from "./helpers/api";
import { registerAgent, registerTool, script } from "./helpers/kernel";
import { newOperatorToken, startServer, type RunningServer } from "./helpers/server";

async function mintKey(tenant: TestTenant, baseUrl?: string): Promise<{ id: string; key: string }> {
  const minted = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: `cache-${Date.now()}` }, baseUrl });
  expect(minted.status).toBe(201);
  return { id: minted.body.id, key: minted.body.key };
}

const whoami = (key: string, baseUrl?: string) => call("GET", "/v1/identity/whoami", { key, baseUrl });
const resolvedBy = async (tenant: TestTenant, agentId: string, baseUrl?: string) => {
  const response = await call("POST", "/v1/runs", { key: tenant.key, baseUrl, body: { agent: { id: agentId }, input: { userMessage: script({ text: "ok" }) }, options: { dryRun: true } } });
  expect(response.status, response.text).toBe(200);
  return response.body.resolvedTools as { id: string; version: string }[];
};

describe("cached actors and resolutions on one server", () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await newTenant("cache coherence");
  });

  it("a revoked key is refused on the very next request", async () => {
    const { id, key } = await mintKey(tenant);
    for (let i = 0; i < 5; i++) expect((await whoami(key)).status).toBe(200);
    expect((await call("POST", `/v1/tokens/${id}/revoke`, { key: tenant.key })).status).toBe(200);
    expectError(await whoami(key), 401, "auth-revoked");
  });

  it("a tool version registered (or unregistered) resolves for the next run", async () => {
    const tool = toolManifest();
    await registerTool(tenant, tool);
    const agent = await registerAgent(tenant, { tools: [{ id: tool.id, version: "^1.0.0" }] });
    for (let i = 0; i < 3; i++) expect(await resolvedBy(tenant, agent.id)).toEqual([{ id: tool.id, range: "^1.0.0", version: "1.0.0" }]);
    await registerTool(tenant, { ...tool, version: "1.1.0" });
    expect(await resolvedBy(tenant, agent.id)).toEqual([{ id: tool.id, range: "^1.0.0", version: "1.1.0" }]);
    expect((await call("POST", `/v1/tools/${tool.id}/versions/1.1.0/unregister`, { key: tenant.key })).status).toBe(200);
    expect(await resolvedBy(tenant, agent.id)).toEqual([{ id: tool.id, range: "^1.0.0", version: "1.0.0" }]);
  });

  it("a tools page kept as JSON text shows a registration, a new latest version and an unregistration on the next read", async () => {
    const latestOf = async (toolId: string) => {
      const list = await call("GET", `/v1/tools?limit=100&q=${encodeURIComponent(toolId)}`, { key: tenant.key });
      expect(list.status, list.text).toBe(200);
      return (list.body.data as { toolId: string; latestVersion: string }[]).find((item) => item.toolId === toolId)?.latestVersion ?? null;
    };
    const tool = toolManifest();
    for (let i = 0; i < 3; i++) expect(await latestOf(tool.id)).toBeNull();
    await registerTool(tenant, tool);
    expect(await latestOf(tool.id)).toBe("1.0.0");
    expect(await latestOf(tool.id)).toBe("1.0.0");
    await registerTool(tenant, { ...tool, version: "1.2.0" });
    expect(await latestOf(tool.id)).toBe("1.2.0");
    expect((await call("POST", `/v1/tools/${tool.id}/versions/1.2.0/unregister`, { key: tenant.key })).status).toBe(200);
    expect(await latestOf(tool.id)).toBe("1.0.0");
    expect((await call("POST", `/v1/tools/${tool.id}/versions/1.0.0/unregister`, { key: tenant.key })).status).toBe(200);
    expect(await latestOf(tool.id)).toBeNull();
  });
});

describe("two servers on one database", () => {
  const { backend, databaseUrl, dataDir } = kindgi();
  let other: RunningServer | undefined;
  afterAll(async () => {
    await other?.stop();
  });

  if (backend === "pglite") {
    // The embedded database is one process's: no second server can serve it (so no cache of another can go stale).
    it("a second server on the same embedded database does not start", async () => {
      await expect(startServer({ dataDir, env: { KINDGI_OPERATOR_TOKEN: newOperatorToken(), KINDGI_SECRETS_KEY: randomBytes(32).toString("base64") } })).rejects.toThrow();
    });
    return;
  }

  let tenant: TestTenant;
  beforeAll(async () => {
    other = await startServer({ env: { DATABASE_URL: databaseUrl, KINDGI_OPERATOR_TOKEN: newOperatorToken(), KINDGI_DEV_PROVIDERS: "1", KINDGI_SECRETS_KEY: randomBytes(32).toString("base64") } });
    tenant = await newTenant("two servers");
  }, 120_000);

  it("a key revoked on A is refused by A and by B on the very next request", async () => {
    const b = other!.baseUrl;
    const { id, key } = await mintKey(tenant);
    for (let i = 0; i < 5; i++) {
      expect((await whoami(key)).status).toBe(200);
      expect((await whoami(key, b)).status).toBe(200);
    }
    const revoked = await call("POST", `/v1/tokens/${id}/revoke`, { key: tenant.key });
    expect(revoked.status).toBe(200);
    expectError(await whoami(key, b), 401, "auth-revoked");
    expectError(await whoami(key), 401, "auth-revoked");
    // And it stays refused there.
    expectError(await whoami(key, b), 401, "auth-revoked");
  });

  it("a tool version registered on A resolves on B for the next run", async () => {
    const b = other!.baseUrl;
    const tool = toolManifest();
    await registerTool(tenant, tool);
    const agent = await registerAgent(tenant, { tools: [{ id: tool.id, version: "^1.0.0" }] });
    for (let i = 0; i < 3; i++) expect(await resolvedBy(tenant, agent.id, b)).toEqual([{ id: tool.id, range: "^1.0.0", version: "1.0.0" }]);
    await registerTool(tenant, { ...tool, version: "1.1.0" });
    expect(await resolvedBy(tenant, agent.id, b)).toEqual([{ id: tool.id, range: "^1.0.0", version: "1.1.0" }]);
    // A real run on B records the new version.
    const run = await call("POST", "/v1/runs", { key: tenant.key, baseUrl: b, body: { agent: { id: agent.id }, input: { userMessage: script({ text: "ok" }) }, options: { wait: true } } });
    expect(run.status, run.text).toBeLessThan(300);
    expect(run.body.resolvedTools).toEqual([{ id: tool.id, range: "^1.0.0", version: "1.1.0" }]);
  });

  it("a tool registered on A (a new id: one statement, no transaction) is listed by B on the very next request", async () => {
    const b = other!.baseUrl;
    const listedBy = async (baseUrl: string) => {
      const list = await call("GET", "/v1/tools?limit=100", { key: tenant.key, baseUrl });
      expect(list.status, list.text).toBe(200);
      return (list.body.data as { toolId: string }[]).map((item) => item.toolId);
    };
    const tool = toolManifest();
    // B holds the page without the tool.
    for (let i = 0; i < 3; i++) expect(await listedBy(b)).not.toContain(tool.id);
    await registerTool(tenant, tool);
    expect(await listedBy(b)).toContain(tool.id);
    expect(await listedBy(kindgi().baseUrl)).toContain(tool.id);
    // Its audit entry was written by the same statement.
    const audit = await call("GET", `/v1/audit?action=tool.registered&subjectId=${encodeURIComponent(`${tool.id}@1.0.0`)}`, { key: tenant.key, baseUrl: b });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.data).toHaveLength(1);
  });

  it("every change is announced on the event bus once it has committed, with the change counter it advanced", async () => {
    const pg = (await import("pg")).default;
    const listener = new pg.Client({ connectionString: databaseUrl });
    const reader = new pg.Client({ connectionString: databaseUrl });
    await Promise.all([listener.connect(), reader.connect()]);
    // What the database holds when each announcement arrives, read at once on another connection.
    type Announcement = { tenants: string[]; access?: number; catalog?: number };
    const arrivals: { announcement: Announcement; revokedAt: Promise<Date | null>; counters: Promise<{ access: number; catalog: number }> }[] = [];
    try {
      let keyId = "";
      listener.on("notification", (message) => {
        if (message.channel !== "kindgi_bus" || !message.payload) return;
        const [, , topic, announcement] = JSON.parse(message.payload) as [string, number, string, Announcement];
        if (topic !== "generation" || !announcement.tenants.some((payload) => payload.startsWith(tenant.tenantId))) return;
        const revokedAt = keyId ? reader.query(`SELECT "revokedAt" FROM "ApiKey" WHERE "id" = $1::uuid`, [keyId]).then((result) => (result.rows[0]?.revokedAt as Date | null) ?? null) : Promise.resolve(null);
        const counters = reader.query(`SELECT (SELECT last_value FROM "kindgi_access_changes")::int AS access, (SELECT last_value FROM "kindgi_catalog_changes")::int AS catalog`).then((result) => result.rows[0]);
        arrivals.push({ announcement, revokedAt, counters });
      });
      await listener.query("LISTEN kindgi_bus");
      const { id } = await mintKey(tenant);
      await vi.waitFor(() => expect(arrivals.map((arrival) => arrival.announcement.tenants)).toEqual([[tenant.tenantId]]), { timeout: 5000 });
      expect(arrivals[0].announcement.access).toBeGreaterThan(0);
      expect((await arrivals[0].counters).access).toBeGreaterThanOrEqual(arrivals[0].announcement.access!);
      keyId = id;
      expect((await call("POST", `/v1/tokens/${id}/revoke`, { key: tenant.key })).status).toBe(200);
      // The revoke advanced the access counter before it answered: the announcement carrying that value (or a later
      // one) arrives with the revocation already visible on another connection. Other announcements of the tenant
      // may come in between (they are not the revoke's), so the revoke's is found by its counter.
      const advanced = (await reader.query(`SELECT last_value::int AS access FROM "kindgi_access_changes"`)).rows[0].access as number;
      expect(advanced).toBeGreaterThan(arrivals[0].announcement.access!);
      const revokes = () => arrivals.filter((arrival) => (arrival.announcement.access ?? 0) >= advanced);
      await vi.waitFor(() => expect(revokes().length).toBeGreaterThan(0), { timeout: 5000 });
      expect(revokes()[0].announcement.tenants).toEqual([tenant.tenantId]);
      expect(await revokes()[0].revokedAt).toBeInstanceOf(Date);
      // A catalog change is announced as one, with the catalog counter.
      await registerTool(tenant, toolManifest());
      await vi.waitFor(() => expect(arrivals.map((arrival) => arrival.announcement.tenants[0])).toContain(`${tenant.tenantId}:catalog`), { timeout: 5000 });
      expect(arrivals.find((arrival) => arrival.announcement.tenants[0] === `${tenant.tenantId}:catalog`)!.announcement.catalog).toBeGreaterThan(0);
    } finally {
      await listener.end();
      // The reads started by announcements still on their way finish before their connection closes.
      await Promise.allSettled(arrivals.flatMap((arrival) => [arrival.revokedAt, arrival.counters]));
      await reader.end();
    }
  });

  it("a server forgets what it cached for a tenant when another server changes it, well before the time-to-live", async () => {
    // This test process caches a value the way a server does, on the same database. Its clock is stopped, so the
    // one-second time-to-live never ends: only the change made by server B (its counter, its announcement) can make
    // the value stale.
    const previousUrl = process.env.DATABASE_URL;
    process.env.DATABASE_URL = databaseUrl;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const { cached } = await import("@/lib/services/tenant-generation");
      let loads = 0;
      const read = () => cached(tenant.tenantId, "announcement-probe", async () => ++loads);
      expect(await read()).toBe(1);
      expect(await read()).toBe(1);
      const response = await call("POST", "/v1/tokens", { key: tenant.key, body: { name: `changed-on-b` }, baseUrl: other!.baseUrl });
      expect(response.status).toBe(201);
      expect(await read()).toBe(2);
      expect(await read()).toBe(2);
    } finally {
      vi.useRealTimers();
      if (previousUrl === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previousUrl;
    }
  });

  it("a key minted on A is accepted by B at once", async () => {
    const { key } = await mintKey(tenant);
    expect((await whoami(key, other!.baseUrl)).status).toBe(200);
  });
});
