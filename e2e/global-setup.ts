import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildIsStale } from "../scripts/build-state.mjs";
import { freshPostgresDatabase, root, startServer } from "../tests/helpers/server";
import { E2E_STATE_VARIABLE, type E2eState } from "./state";

/**
 * Builds when the sources changed since the last build (vitest's global setup has usually just built), then starts
 * one server as `npm start` does on a free 127.0.0.1 port, on a fresh embedded data folder, or on a fresh
 * PostgreSQL database when KINDGI_TEST_DATABASE_URL is set. The admin's email and password as the first start printed
 * them, the bootstrap key and the URL go to the specs through a JSON file named by an environment variable.
 */
export default async function globalSetup() {
  if (buildIsStale(root)) {
    const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { cwd: root, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8" });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  }
  const bootstrapKey = `kgi_e2e${randomBytes(24).toString("hex")}`.slice(0, 44);
  const testDatabaseUrl = process.env.KINDGI_TEST_DATABASE_URL;
  const database = testDatabaseUrl ? await freshPostgresDatabase(testDatabaseUrl) : null;
  const server = await startServer({
    env: {
      DATABASE_URL: database?.url,
      // No admin email or password: the specs sign in with the ones the first start prints.
      KINDGI_ADMIN_EMAIL: undefined,
      KINDGI_ADMIN_PASSWORD: undefined,
      KINDGI_BOOTSTRAP_API_KEY: bootstrapKey,
      KINDGI_DEV_PROVIDERS: "1",
      // The settings spec registers a real MCP server over stdio.
      KINDGI_MCP_STDIO: "allow",
      KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"),
    },
  });
  const printed = (label: string) => new RegExp(`^\\s*${label}:\\s+(\\S+)\\s*$`, "m").exec(server.output())?.[1];
  for (let waited = 0; !printed("admin password") && waited < 5000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  const adminEmail = printed("admin email");
  const adminPassword = printed("admin password");
  if (!adminEmail || !adminPassword) {
    await server.stop();
    throw new Error(`the first start printed no admin email and password:\n${server.output()}`);
  }
  const whoami = await fetch(`${server.baseUrl}/v1/identity/whoami`, { headers: { Authorization: `Bearer ${bootstrapKey}` } }).then((response) => response.json());
  const state: E2eState = { baseUrl: server.baseUrl, adminEmail, adminPassword, bootstrapKey, defaultProjectId: whoami.tenant.defaultProjectId, backend: database ? "postgresql" : "pglite" };
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-e2e-"));
  const stateFile = path.join(stateDir, "state.json");
  fs.writeFileSync(stateFile, JSON.stringify(state), { mode: 0o600 });
  process.env[E2E_STATE_VARIABLE] = stateFile;
  console.log(`[kindgi e2e] server ${server.baseUrl} on ${database ? "PostgreSQL" : "PGlite"}`);
  return async () => {
    await server.stop();
    await database?.drop();
    if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
    fs.rmSync(stateDir, { recursive: true, force: true });
  };
}
