#!/usr/bin/env node
// `npm start`: build when the sources changed, apply migrations, then serve with `next start`.
// With the embedded database this process holds the data folder's lock for the server's whole life.
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { acquireDataDirLock } from "../lib/db/lock.mjs";
import { buildIsStale } from "./build-state.mjs";
import { runMigrations } from "../lib/db/migrate.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const nextBin = path.join(root, "node_modules/next/dist/bin/next");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

function fail(message) {
  console.error(`kindgi: ${message}`);
  process.exit(1);
}

const dataDir = path.resolve(root, process.env.KINDGI_DATA_DIR ?? "data/pgdata");
const token = randomUUID();
if (!process.env.DATABASE_URL) {
  try {
    acquireDataDirLock(dataDir, { token });
  } catch (error) {
    fail(error.message);
  }
  env.KINDGI_DATA_LOCK_TOKEN = token;
  env.KINDGI_DATA_DIR = dataDir;
}

if (process.env.KINDGI_SKIP_BUILD !== "1" && buildIsStale(root)) {
  console.log("kindgi: building the app (next build)…");
  const build = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, env, stdio: "inherit" });
  if (build.status !== 0) fail("next build failed");
}

try {
  const applied = await runMigrations({ command: "deploy", databaseUrl: process.env.DATABASE_URL, dataDir });
  if (applied.length) console.log(`kindgi: applied migrations ${applied.join(", ")}`);
} catch (error) {
  fail(`migrations failed: ${error.message}`);
}

const port = process.env.PORT ?? "3000";
const host = process.env.HOST ?? "127.0.0.1";
const server = spawn(process.execPath, [nextBin, "start", "-H", host, "-p", port], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
