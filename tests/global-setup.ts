import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildIsStale } from "../scripts/build-state.mjs";
import { freshPostgresDatabase, newOperatorToken, root, startServer, type RunningServer } from "./helpers/server";

declare module "vitest" {
  export interface ProvidedContext {
    kindgi: { baseUrl: string; operatorToken: string; bootstrapKey: string; sessionSecret: string; backend: "pglite" | "postgresql"; databaseUrl?: string; dataDir?: string };
  }
}

/** Builds if there is no build or the sources changed since it (as `npm start` does), then starts one server for every integration test file. */
export default async function setup(project: TestProject) {
  if (buildIsStale(root)) {
    const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
      cwd: root,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      encoding: "utf8",
    });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  }

  const operatorToken = newOperatorToken();
  const bootstrapKey = `kgi_test${Date.now()}${Math.random().toString(36).slice(2)}`.replace(/[^0-9A-Za-z_]/g, "").slice(0, 44);
  const sessionSecret = randomBytes(32).toString("base64");
  const testDatabaseUrl = process.env.KINDGI_TEST_DATABASE_URL;
  const database = testDatabaseUrl ? await freshPostgresDatabase(testDatabaseUrl) : null;
  const server: RunningServer = await startServer({
    env: { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_BOOTSTRAP_API_KEY: bootstrapKey, KINDGI_ADMIN_EMAIL: `first-admin-${Date.now()}@example.test`, KINDGI_ADMIN_PASSWORD: "first-admin-password", KINDGI_DEV_PROVIDERS: "1", KINDGI_ALLOW_PRIVATE_PROVIDER_URLS: "1", KINDGI_NOTIFICATIONS_ALLOW_PRIVATE_URLS: "1", KINDGI_NOTIFICATION_RETRY_BASE_MS: "300", KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), KINDGI_SESSION_SECRET: sessionSecret, KINDGI_ALLOWED_ORIGINS: "https://console.example.test, https://admin.example.test" },
  });
  project.provide("kindgi", {
    baseUrl: server.baseUrl,
    operatorToken,
    bootstrapKey,
    sessionSecret,
    backend: database ? "postgresql" : "pglite",
    databaseUrl: database?.url,
    dataDir: server.dataDir,
  });
  console.log(`[kindgi tests] server ${server.baseUrl} on ${database ? "PostgreSQL" : "PGlite"}`);
  return async () => {
    await server.stop();
    await database?.drop();
    if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
  };
}
