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

// The log: one JSON line per event on stdout, as the server's (lib/log.ts), or a line for people with
// KINDGI_LOG_FORMAT=pretty. Nothing logged here holds a secret.
const pretty = process.env.KINDGI_LOG_FORMAT?.trim().toLowerCase() === "pretty";
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 };
function log(level, msg, fields = {}) {
  if (LEVELS[level] < (LEVELS[process.env.KINDGI_LOG_LEVEL?.trim().toLowerCase()] ?? LEVELS.info)) return;
  const time = new Date();
  // A database URL's password, should an error quote one.
  const scrub = (text) => text.replace(/(\/\/[^\s:/@"]+:)[^\s@/"]+@/g, "$1[redacted]@");
  if (!pretty) return void process.stdout.write(`${scrub(JSON.stringify({ level, time: time.toISOString(), msg, ...fields }))}\n`);
  const clock = time.toTimeString().slice(0, 8) + `.${String(time.getMilliseconds()).padStart(3, "0")}`;
  const rest = Object.entries(fields).map(([key, value]) => ` ${key}=${typeof value === "string" && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)}`).join("");
  process.stdout.write(`${scrub(`${clock} ${level.toUpperCase().padEnd(5)} ${msg}${rest}`)}\n`);
}

/** A start that cannot go on: an error in the log, the message on stderr for the person who started it, exit code 1. */
function fail(message) {
  log("error", "the server cannot start", { err: { message } });
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
  log("info", "building the app (next build); its output is on stderr");
  // The build's progress is for people: on stderr, so that stdout holds log lines only.
  const build = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, env, stdio: ["inherit", pretty ? "inherit" : 2, "inherit"] });
  if (build.status !== 0) fail("next build failed");
}

// PostgreSQL: the migrations and the first tenant once for every replica starting now (lib/db/startup-lock.mjs). The
// lock is held until the server has bootstrapped (it says so over the IPC channel) or has exited.
let releaseStartupLock = null;
if (process.env.DATABASE_URL) {
  try {
    releaseStartupLock = await takeStartupLock(process.env.DATABASE_URL, { onWait: () => log("info", "another server is starting on this database; waiting for its migrations and first tenant") });
  } catch (error) {
    fail(`cannot reach the database: ${error.message}`);
  }
  env.KINDGI_STARTUP_LOCK = "held";
}

try {
  const applied = await runMigrations({ command: "deploy", databaseUrl: process.env.DATABASE_URL, dataDir });
  if (applied.length) log("info", "applied migrations", { migrations: applied });
} catch (error) {
  fail(`migrations failed: ${error.message}`);
}

const port = process.env.PORT ?? "3000";
const host = process.env.HOST ?? "127.0.0.1";
// scripts/http-edge.mjs answers in the API's envelope what Next.js and Node's parser would answer in plain text.
const edge = path.join(root, "scripts/http-edge.mjs");
// Next.js prints its banner ("▲ Next.js …", "Ready in …") on stdout and cannot be told not to: in the JSON format the
// server's stdout comes through here, its log lines as they are and any other line (Next's) as a log line of its own.
const stdout = pretty ? "inherit" : "pipe";
const server = spawn(process.execPath, ["--import", pathToFileURL(edge).href, nextBin, "start", "-H", host, "-p", port], { cwd: root, env, stdio: releaseStartupLock ? ["inherit", stdout, "inherit", "ipc"] : ["inherit", stdout, "inherit"] });
if (server.stdout) relayLines(server.stdout);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
if (releaseStartupLock) server.on("message", (message) => message?.kindgi === "bootstrapped" && void releaseStartupLock());
server.on("exit", async (code, signal) => {
  await releaseStartupLock?.();
  // The server's last lines, when they come through here, are written before this process ends.
  if (server.stdout && !server.stdout.readableEnded) await new Promise((resolve) => { server.stdout.once("end", resolve); setTimeout(resolve, 1000).unref(); });
  process.exit(code ?? (signal ? 1 : 0));
});

/** Writes the server's stdout on ours line by line: JSON lines unchanged, others (Next.js's) as info lines from next. */
function relayLines(stream) {
  let pending = "";
  const relay = (line) => {
    if (line.startsWith("{")) return void process.stdout.write(`${line}\n`);
    // eslint-disable-next-line no-control-regex
    const text = line.replace(/\x1b\[[0-9;]*m/g, "").trim();
    if (text) log("info", text, { source: "next" });
  };
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop();
    for (const line of lines) relay(line);
  });
  stream.on("end", () => pending && relay(pending));
}
