import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call, expectError, kindgi, newTenant, toolManifest } from "./helpers/api";
import { freePort, freshPostgresDatabase, root, startServer, type RunningServer } from "./helpers/server";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function cli(args: string[], env: Record<string, string | undefined>) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  delete childEnv.DATABASE_URL;
  for (const [key, value] of Object.entries(env)) if (value !== undefined) childEnv[key] = value;
  return spawnSync(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), "scripts/kindgi.ts", ...args], { cwd: root, env: childEnv, encoding: "utf8", timeout: 120_000 });
}

/**
 * A first start on a database of its own (a fresh PostgreSQL database on that backend, a fresh data folder on PGlite),
 * with no operator token or bootstrap key: the server, and the admin key and project id it prints once.
 */
async function startFirstServer(extraEnv: Record<string, string | undefined> = {}) {
  const database = kindgi().backend === "postgresql" ? await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL!) : null;
  if (database) cleanups.push(database.drop);
  const env = { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: undefined, KINDGI_BOOTSTRAP_API_KEY: undefined, ...extraEnv };
  const server = await startServer({ env });
  cleanups.push(() => server.stop());
  const dataDir = server.dataDir;
  if (dataDir) cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  await expect.poll(() => server.output(), { timeout: 10_000 }).toContain("API key:");
  const output = server.output();
  return { server, env, database, dataDir, key: /API key:\s+(kgi_\w+)/.exec(output)![1], projectId: /project id:\s+([0-9a-f-]{36})/.exec(output)![1] };
}

/**
 * Lists the backend PIDs of every other connection to the database at `url`, read through a connection of its own
 * (ended at clean-up).
 */
async function otherConnections(url: string): Promise<() => Promise<number[]>> {
  const pg = (await import("pg")).default;
  const observer = new pg.Client({ connectionString: url });
  await observer.connect();
  cleanups.push(() => observer.end());
  return async () => (await observer.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")).rows.map((row) => row.pid);
}

describe("first start on an empty database", () => {
  it("creates a tenant, prints the admin credentials and a key once, and the key registers a tool", async () => {
    const first = await startFirstServer({ KINDGI_ADMIN_EMAIL: undefined, KINDGI_ADMIN_PASSWORD: undefined });
    const { env, database, dataDir, key, projectId } = first;
    let server: RunningServer = first.server;
    const output = server.output();
    expect(output).toMatch(/admin email:\s+admin@kindgi\.local/);
    expect(output).toMatch(/admin password:\s+\w{20}/);

    const registered = await call("POST", "/v1/tools", { baseUrl: server.baseUrl, key, body: { ...toolManifest(), projectId } });
    expect(registered.status).toBe(201);
    // Without KINDGI_OPERATOR_TOKEN the operator route does not exist.
    expectError(await call("POST", "/v1/tenants", { baseUrl: server.baseUrl, key, body: { name: "x" } }), 404, "not-found");

    if (dataDir) {
      // A second process on the same data folder is refused with a clear message, and so is the CLI.
      const second = await startServer({ env, dataDir }).then(
        (other) => {
          cleanups.push(() => other.stop());
          return "started";
        },
        (error: Error) => error.message,
      );
      expect(second).toMatch(/is in use by another Kindgi process/);
      const refused = cli(["tenants", "create", "Blocked"], { KINDGI_DATA_DIR: path.join(dataDir, "pgdata") });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/is in use by another Kindgi process/);
    }

    await server.stop();
    // The CLI creates further tenants and prints JSON with the tenant, project and an admin key.
    const created = cli(["tenants", "create", "CLI Company", "--admin-email", `cli-${Date.now()}@example.test`], { DATABASE_URL: database?.url, KINDGI_DATA_DIR: dataDir && path.join(dataDir, "pgdata") });
    expect(created.status, created.stderr).toBe(0);
    const tenant = JSON.parse(created.stdout);
    expect(tenant).toMatchObject({ tenant: { name: "CLI Company" }, project: { isDefault: true }, apiKey: { key: expect.stringMatching(/^kgi_/) } });

    // A restart neither creates nor prints anything new; every key keeps working.
    server = await startServer({ env, dataDir });
    cleanups.push(() => server.stop());
    expect(server.output()).not.toContain("created the first tenant");
    expect((await call("GET", "/v1/identity/whoami", { baseUrl: server.baseUrl, key })).status).toBe(200);
    const cliWho = await call("GET", "/v1/identity/whoami", { baseUrl: server.baseUrl, key: tenant.apiKey.key });
    expect(cliWho.body.tenant.name).toBe("CLI Company");
    expect((await call("GET", `/v1/tools`, { baseUrl: server.baseUrl, key })).body.data.filter((tool: { builtIn: boolean }) => !tool.builtIn)).toHaveLength(1);
  }, 240_000);
});

describe("a fatal configuration error", () => {
  /** Runs `cmd` with the test environment plus `env` (no DATABASE_URL, a fresh data folder) until it exits or 60 s pass. */
  function runToExit(command: string[], env: Record<string, string>) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-config-"));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const childEnv: NodeJS.ProcessEnv = { ...process.env, KINDGI_SKIP_BUILD: "1", NEXT_TELEMETRY_DISABLED: "1", KINDGI_DATA_DIR: path.join(dataDir, "pgdata"), ...env };
    delete childEnv.DATABASE_URL;
    const started = Date.now();
    const result = spawnSync(process.execPath, command, { cwd: root, env: childEnv, encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" });
    return { ...result, ms: Date.now() - started };
  }

  it("makes npm start exit 1 at once with every problem on stderr, never the values", async () => {
    const secret = "not-a-32-byte-key-but-secret-looking";
    const result = runToExit([path.join(root, "scripts/start.mjs")], { KINDGI_BOOTSTRAP_API_KEY: "kgi_short", KINDGI_SECRETS_KEY: secret, KINDGI_RUN_LEASE_MS: "soon", KINDGI_COMPRESS: "yes", KINDGI_APPROVAL_EXPIRED: "later", PORT: String(await freePort()) });
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.ms).toBeLessThan(15_000);
    expect(result.stderr).toContain("the configuration is not valid");
    expect(result.stderr).toContain("KINDGI_BOOTSTRAP_API_KEY must look like kgi_ followed by 20 to 200 letters and digits");
    expect(result.stderr).toMatch(/KINDGI_SECRETS_KEY must be 32 bytes/);
    expect(result.stderr).toMatch(/KINDGI_RUN_LEASE_MS .* must be a whole number from 1000/);
    expect(result.stderr).toContain("KINDGI_COMPRESS must be 1 (gzip responses) or 0");
    expect(result.stderr).toContain("KINDGI_APPROVAL_EXPIRED must be reject (an expired approval goes back to the model) or fail");
    expect(result.stdout + result.stderr).not.toContain(secret);
    expect(result.stdout + result.stderr).not.toContain("kgi_short");
  });

  it("makes the server itself exit 1 with the message on stderr when started without npm start", async () => {
    const port = await freePort();
    const result = runToExit([path.join(root, "node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", String(port)], { KINDGI_BOOTSTRAP_API_KEY: "kgi_short" });
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain("kindgi: the server cannot start: the configuration is not valid");
    expect(result.stderr).toContain("KINDGI_BOOTSTRAP_API_KEY must look like kgi_");
    // It printed the error once, not once per request.
    expect(result.stderr.match(/KINDGI_BOOTSTRAP_API_KEY must look like/g)).toHaveLength(1);
  });
});

describe("response compression", () => {
  it("is left to the reverse proxy by default and done by the server with KINDGI_COMPRESS=1", async () => {
    const tenant = await newTenant("compression");
    for (let i = 0; i < 12; i++) expect((await call("POST", "/v1/tools", { key: tenant.key, body: { ...toolManifest(), projectId: tenant.projectId } })).status).toBe(201);
    const plain = await fetch(`${kindgi().baseUrl}/v1/tools?limit=100`, { headers: { Authorization: `Bearer ${tenant.key}`, "Accept-Encoding": "gzip" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-encoding")).toBeNull();
    // The same list the compressing server gzips below: past the threshold.
    expect((await plain.text()).length).toBeGreaterThan(2048);

    const { server, key: firstKey, projectId } = await startFirstServer({ KINDGI_COMPRESS: "1" });
    // Enough tools that the list is past the compression threshold.
    for (let i = 0; i < 5; i++) expect((await call("POST", "/v1/tools", { baseUrl: server.baseUrl, key: firstKey, body: { ...toolManifest(), projectId } })).status).toBe(201);
    const gzipped = await fetch(`${server.baseUrl}/v1/tools?limit=100`, { headers: { Authorization: `Bearer ${firstKey}`, "Accept-Encoding": "gzip" } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect((await gzipped.json()).data.length).toBeGreaterThanOrEqual(5);
  });
});

// The embedded database is one thread of the server's, with no connections to close: this is PostgreSQL's.
if (kindgi().backend === "postgresql") {
  describe("PostgreSQL connections", () => {
    it("outlive an idle spell longer than pg's 10 s default, so the next burst does not wait for new ones", async () => {
      const { server, database, key, projectId } = await startFirstServer();
      // 16 registrations in flight at once take several of the pool's connections.
      const burst = async () => {
        const answers = await Promise.all(Array.from({ length: 16 }, () => call("POST", "/v1/tools", { baseUrl: server.baseUrl, key, body: { ...toolManifest(), projectId } })));
        for (const answer of answers) expect(answer.status, answer.text).toBe(201);
      };
      for (let i = 0; i < 3; i++) await burst();

      // Every other connection to this fresh database is the server's.
      const serverConnections = await otherConnections(database!.url);
      const before = await serverConnections();
      expect(before.length).toBeGreaterThanOrEqual(4);

      // Idle but for the background loops, which keep one or two connections busy.
      await new Promise((resolve) => setTimeout(resolve, 11_000));
      const after = await serverConnections();
      expect(before.filter((pid) => !after.includes(pid))).toEqual([]);
      await burst();
    });

    it("are all closed by the migrations once they are applied", async () => {
      const database = await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL!);
      cleanups.push(database.drop);
      const { runMigrations } = await import("@/lib/db/migrate.mjs");
      expect((await runMigrations({ command: "deploy", databaseUrl: database.url })).length).toBeGreaterThan(0);
      expect(await (await otherConnections(database.url))()).toEqual([]);
    });
  });
}
