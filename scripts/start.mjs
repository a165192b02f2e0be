#!/usr/bin/env node
// `npm start`: build when the sources changed, apply migrations, then serve with `next start`.
// With the embedded database this process holds the data folder's lock for the server's whole life.
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { tsImport } from "tsx/esm/api";
import { pathToFileURL } from "node:url";
import { acquireDataDirLock } from "../lib/db/lock.mjs";
import { buildIsStale } from "./build-state.mjs";
import { runMigrations } from "../lib/db/migrate.mjs";
import { takeStartupLock } from "../lib/db/startup-lock.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const nextBin = path.join(root, "node_modules/next/dist/bin/next");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

function fail(message) {
  console.error(`kindgi: ${message}`);
  process.exit(1);
}

// A malformed setting stops the start here, before the build, the lock and the migrations.
const { configurationProblems } = await tsImport("../lib/configuration.ts", import.meta.url);
const problems = configurationProblems(process.env);
if (problems.length) fail(`the configuration is not valid:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);

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

// PostgreSQL: the migrations and the first tenant once for every replica starting now (lib/db/startup-lock.mjs). The
// lock is held until the server has bootstrapped (it says so over the IPC channel) or has exited.
let releaseStartupLock = null;
if (process.env.DATABASE_URL) {
  try {
    releaseStartupLock = await takeStartupLock(process.env.DATABASE_URL, { onWait: () => console.log("kindgi: another server is starting on this database; waiting for its migrations and first tenant…") });
  } catch (error) {
    fail(`cannot reach the database: ${error.message}`);
  }
  env.KINDGI_STARTUP_LOCK = "held";
}

try {
  const applied = await runMigrations({ command: "deploy", databaseUrl: process.env.DATABASE_URL, dataDir });
  if (applied.length) console.log(`kindgi: applied migrations ${applied.join(", ")}`);
} catch (error) {
  fail(`migrations failed: ${error.message}`);
}

const port = process.env.PORT ?? "3000";
const host = process.env.HOST ?? "127.0.0.1";
// scripts/http-edge.mjs answers in the API's envelope what Next.js and Node's parser would answer in plain text.
const edge = path.join(root, "scripts/http-edge.mjs");
const server = spawn(process.execPath, ["--import", pathToFileURL(edge).href, nextBin, "start", "-H", host, "-p", port], { cwd: root, env, stdio: releaseStartupLock ? ["inherit", "inherit", "inherit", "ipc"] : "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
if (releaseStartupLock) server.on("message", (message) => message?.kindgi === "bootstrapped" && void releaseStartupLock());
server.on("exit", async (code, signal) => {
  await releaseStartupLock?.();
  process.exit(code ?? (signal ? 1 : 0));
});
