#!/usr/bin/env node
// `npm start`: build when the sources changed, apply migrations, then serve with `next start`.
// With the embedded database this process holds the data folder's lock for the server's whole life.
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { acquireDataDirLock } from "../lib/db/lock.mjs";
import { runMigrations } from "../lib/db/migrate.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const nextBin = path.join(root, "node_modules/next/dist/bin/next");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

function newestSourceTime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "generated" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceTime(full));
    else newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function buildIsStale() {
  const buildId = path.join(root, ".next/BUILD_ID");
  if (!fs.existsSync(buildId)) return true;
  const built = fs.statSync(buildId).mtimeMs;
  const sources = ["app", "components", "lib", "public"].map((dir) => path.join(root, dir)).filter((dir) => fs.existsSync(dir));
  const files = ["next.config.js", "package.json", "instrumentation.ts", "proxy.ts", "postcss.config.mjs", "tsconfig.json"].map((file) => path.join(root, file)).filter((file) => fs.existsSync(file));
  const newest = Math.max(...sources.map(newestSourceTime), ...files.map((file) => fs.statSync(file).mtimeMs));
  return newest > built;
}

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

if (process.env.KINDGI_SKIP_BUILD !== "1" && buildIsStale()) {
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
// scripts/http-edge.mjs answers in the API's envelope what Next.js and Node's parser would answer in plain text.
const edge = path.join(root, "scripts/http-edge.mjs");
const server = spawn(process.execPath, ["--import", pathToFileURL(edge).href, nextBin, "start", "-H", host, "-p", port], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
