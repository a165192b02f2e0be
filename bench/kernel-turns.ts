/**
 * Agent-turn benchmark: the same turn through our kernel over HTTP, our kernel in-process, a peer library in memory
 * and, on PostgreSQL, two durable peers on the same server, side by side in one table.
 *
 * The turn: a dev-echo agent with one native tool. The model (dev-echo: deterministic, no network) calls
 * `current-time` once (the user message is "UTC": dev-echo fills no optional property with text, so the arguments are
 * `{}` and the tool answers in UTC; the peer sends `{timezone: "UTC"}`), then answers with the tool's result:
 * 2 model calls + 1 tool call per turn.
 *
 * Rows:
 *   (a) HTTP       – `next start` (via scripts/start.mjs) on 127.0.0.1, a fresh tenant, the agent registered with
 *                    POST /v1/agents (plus the tenant's projectId), then
 *                    POST /v1/runs `{agent: {id}, input: {userMessage: "UTC"}, options: {wait: true}}`,
 *                    first one at a time, then with BENCH_CONCURRENCY workers, through `node:http` with keep-alive
 *                    connections (BENCH_CLIENT=fetch: Node's fetch; see `loadClient` in bench/common.ts). Every response must be 201 with
 *                    `status: "completed"`; anything else counts as a failure.
 *   (h) bare POST  – the HTTP floor of (a): a bare Next.js route handler (`POST /echo` of bench/baseline-app.ts, the same
 *                    `next`, no app code) that parses the same request body and answers 201 with a body as long as
 *                    (a)'s, served by its own `next start` beside the product's. (a) and (h) run in alternating
 *                    blocks of BENCH_HTTP_BLOCK requests at each concurrency. The bench prints (a)'s p50 beside
 *                    (b) + (h) — a turn without HTTP plus a request that does nothing — and (a)'s rate as a share of
 *                    (h)'s.
 *   (b) in-process – our kernel without HTTP: `createBenchHarness()` from `@/lib/services/kernel-bench-harness`, then
 *                    `runTurn("UTC")` per turn and `close()`. Without that module: "(b) not available in this build".
 *   (b50)          – the same in-process turn with BENCH_IN_FLIGHT turns in flight at once (default 50), in the same
 *                    process and database as (b): turns/s of the kernel under concurrent load.
 *   (f) floor      – the raw-driver floor: the same commits (the same statements, the same data: the three commits of
 *                    one journaled turn of row (b), replayed with a new run id each time) issued directly on the driver
 *                    the kernel uses — on PGlite the database on its thread (lib/db/pglite-thread.ts) and its wire
 *                    protocol, on PostgreSQL `pg`, with named prepared statements — with no kernel, no Prisma and no
 *                    catalog reads around them. The bench prints the ratio row(b)/row(f) of the p50s. (b) and (f)
 *                    run in alternating blocks of BENCH_BLOCK turns (b, f, b, f, …), so the two rows of the ratio see
 *                    the same machine; each row's wall time is the sum of its blocks'.
 *   (c) peer       – the Vercel AI SDK (`ai`, `generateText` + `MockLanguageModelV3`) in memory (bench/peer/ai-sdk-turn.mts),
 *                    the same fake model behaviour and the same tool input schema. No database, no journal: it is
 *                    the floor of a tool-calling loop, not an equivalent of a durable run. (The AI SDK 6 line runs on
 *                    Node 20; the OpenAI Agents SDK needs `openai` 7, which requires Node 22.)
 * On PostgreSQL only (--backend pg; none of these rows exists on PGlite):
 *   (m) minimal floor – three single-row commits on a bare table: `bench_floor(id bigserial primary key, run text,
 *                    step int, at timestamptz default now())` in a fresh database, three autocommit INSERTs per turn
 *                    through `pg` (a named prepared statement, one connection): what three durable commits cost on this
 *                    server with nothing else. Measured in (b)'s alternating blocks, beside (f) (b, f, m, b, f, m, …).
 *   (g) peer       – LangGraph JS (`@langchain/langgraph` + `@langchain/langgraph-checkpoint-postgres`,
 *                    bench/peer/langgraph-turn.mts): a StateGraph model node → ToolNode → model node with a fake LangChain
 *                    chat model, compiled with PostgresSaver in a fresh database on the same server; each turn a new
 *                    thread_id (a new durable execution), LangGraph's default durability ("async").
 *   (d) peer       – DBOS Transact (`@dbos-inc/dbos-sdk`, bench/peer/dbos-turn.mts): each turn a new workflow whose two
 *                    model calls and one tool call are steps, its system database a fresh database on the same server.
 *                    (g) and (d) warm up one after the other, then run in alternating blocks of BENCH_BLOCK turns
 *                    (g, d, g, d, …), after (c). Without their packages in bench/node_modules: a row saying
 *                    "(not installed: npm ci --prefix bench)".
 *                    Every sequential in-process row (f, m, c, g, d) is printed against (b) too: its p50 and p95 as
 *                    multiples of (b)'s.
 *
 * Run:
 *   npm run bench:kernel                              # all rows, PGlite, builds Next first
 *   npm run bench:kernel -- --skip-build              # reuse the current .next build
 *   npm run bench:kernel -- --rows c                  # only the peer row (no build, no server)
 *   npm run bench:kernel -- --backend pg              # PostgreSQL at $DATABASE_URL or the local default;
 *                                                     # a fresh database per server/harness/row, dropped at the end
 *   npm run bench:kernel -- --backend pg --rows b,f,m,c,g,d   # the in-process rows and the durable peers, no HTTP
 * Flags: --rows a,b,c,f,m,g,d (default all; f and m need b; m, g, d need --backend pg), --backend pglite|pg, --skip-build.
 * Environment: BENCH_HTTP_TURNS (1000), BENCH_IN_PROCESS_TURNS (2000), BENCH_HTTP_WARMUP (1000),
 *              BENCH_IN_PROCESS_WARMUP (2000), BENCH_CONCURRENCY (8), BENCH_IN_FLIGHT (50), BENCH_BLOCK (100), BENCH_HTTP_BLOCK (50),
 *              BENCH_CLIENT (http | fetch: the HTTP rows' client).
 * Rows (c), (g) and (d) need bench/'s own dependencies: when bench/node_modules is missing this script runs
 * `npm ci --prefix bench` (they are never dependencies of the product; bench/package-lock.json pins them). The peer
 * code is `.mts`, outside the root type-check (which has no `ai`, LangGraph or DBOS); `npx tsc -p bench` checks it
 * against bench/node_modules.
 *
 * Latency is per turn: until the full response body is read (a) or the turn's promise settles (b, c); turns/s is
 * counted turns / wall time of the row. Warm-up turns come first and are not counted: 2,000 in-process turns per row
 * (b, f, m, c, g, d) by default, because the in-process turn keeps getting faster for about 2,000 turns as the JIT compiles its
 * code and PGlite's. The p50 of (b) and (f) in each quarter of the measured turns is printed under the table, so a run
 * shows whether a row was still warming up; `BENCH_IN_PROCESS_WARMUP=0 BENCH_IN_PROCESS_TURNS=4000` shows the curve
 * itself (bench/README.md, "the tenth machine"). Output: an aligned table (p50, p95, p99), the ratio and its quarters,
 * the sequential rows against (b), the HTTP rows beside their floor, one verdict line per target this run can judge (p50 of (b) <= 3 ms and (b)/(f) <= 1.5x on either
 * backend; on PostgreSQL also (b50) >= 400 turns/s with 50 in flight and (a) >= 120 turns/s one at a time and >= 250
 * at 8), then one JSON line with every figure. Exit code 1 when a measured turn failed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { cleanupOnExit, DEFAULT_PG_URL, jsonOrUndefined, loadClient, postJson, type Cleanup } from "./common";
import { freshPostgresDatabase, newOperatorToken, root, startServer } from "../tests/helpers/server";
import type { TurnHarness } from "./turn-harness";
import { createBaselineApp, runNode, startBaseline } from "./baseline-app";
import { againstKernelLines, figures, httpLines, quarterLines, ratioOf, tableLines, unavailable, verdicts, type Row } from "./kernel-report";
import { BENCH_AGENT, type BenchTurnSample } from "../lib/services/kernel-bench-harness";
import { APPEND_SQL, CREATE_RUN_SQL, appendParams, createRunParams } from "../lib/services/kernel-store";
import { pgliteRawQuery, statementName } from "../lib/db";
import type { JournalEvent, ModelCalledData, TurnStartedData } from "../lib/kernel/types";

const USER_MESSAGE = "UTC";
const benchDir = path.join(root, "bench");
/** Set on SIGINT/SIGTERM: the HTTP load stops issuing requests and the run unwinds to its cleanup. */
let interrupted = false;

/** The agent every row runs (rows c, g, d mirror it in bench/peer/). */
const AGENT = BENCH_AGENT;

type RowId = "a" | "b" | "c" | "f" | "m" | "g" | "d";
const ROW_IDS: RowId[] = ["a", "b", "c", "f", "m", "g", "d"];
/** The rows measured on PostgreSQL only. */
const PG_ROWS: RowId[] = ["m", "g", "d"];
type Options = { rows: Set<RowId>; backend: "pglite" | "postgresql"; databaseUrl?: string; skipBuild: boolean; httpTurns: number; inProcessTurns: number; httpWarmup: number; inProcessWarmup: number; concurrency: number; inFlight: number; block: number; httpBlock: number; client: "http" | "fetch" };

function envInt(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} needs an integer >= ${min}, got ${raw}`);
  return n;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    rows: new Set<RowId>(ROW_IDS),
    backend: "pglite",
    skipBuild: false,
    httpTurns: envInt("BENCH_HTTP_TURNS", 1000, 1),
    inProcessTurns: envInt("BENCH_IN_PROCESS_TURNS", 2000, 1),
    httpWarmup: envInt("BENCH_HTTP_WARMUP", 1000, 0),
    inProcessWarmup: envInt("BENCH_IN_PROCESS_WARMUP", 2000, 0),
    concurrency: envInt("BENCH_CONCURRENCY", 8, 1),
    inFlight: envInt("BENCH_IN_FLIGHT", 50, 1),
    block: envInt("BENCH_BLOCK", 100, 1),
    httpBlock: envInt("BENCH_HTTP_BLOCK", 50, 1),
    client: process.env.BENCH_CLIENT === "fetch" ? "fetch" : "http",
  };
  if (process.env.BENCH_CLIENT && process.env.BENCH_CLIENT !== "fetch" && process.env.BENCH_CLIENT !== "http") throw new Error(`BENCH_CLIENT must be http or fetch, got ${process.env.BENCH_CLIENT}`);
  let backendFlag: string | undefined;
  let rowsFlag = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--backend") backendFlag = argv[++i];
    else if (flag === "--rows") {
      const rows = (argv[++i] ?? "").split(",").map((row) => row.trim());
      if (rows.length === 0 || rows.some((row) => !(ROW_IDS as string[]).includes(row))) throw new Error(`--rows takes a comma-separated subset of ${ROW_IDS.join(",")}, got ${argv[i] ?? "nothing"}`);
      options.rows = new Set(rows as RowId[]);
      rowsFlag = true;
    } else if (flag === "--help" || flag === "-h") {
      console.log("usage: npm run bench:kernel -- [--rows a,b,c,f,m,g,d] [--backend pglite|pg] [--skip-build]   (turn counts: see the header of bench/kernel-turns.ts)");
      process.exit(0);
    } else throw new Error(`unknown argument ${flag} (try --help)`);
  }
  if (backendFlag === "pg" || backendFlag === "postgres" || backendFlag === "postgresql") {
    options.backend = "postgresql";
    options.databaseUrl = process.env.DATABASE_URL || DEFAULT_PG_URL;
  } else if (backendFlag !== undefined && backendFlag !== "pglite") {
    throw new Error(`--backend must be pglite or pg, got ${backendFlag}`);
  } else if (backendFlag === undefined && process.env.DATABASE_URL) {
    options.backend = "postgresql";
    options.databaseUrl = process.env.DATABASE_URL;
  }
  if (options.backend !== "postgresql") {
    const asked = PG_ROWS.filter((row) => options.rows.has(row));
    if (rowsFlag && asked.length > 0) throw new Error(`${asked.length === 1 ? "row" : "rows"} ${asked.join(", ")} ${asked.length === 1 ? "is" : "are"} measured on PostgreSQL only: add --backend pg`);
    for (const row of PG_ROWS) options.rows.delete(row);
  }
  if (options.rows.has("f") || options.rows.has("m")) options.rows.add("b");
  return options;
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring (the figures and verdicts printed from the rows: bench/kernel-report.ts)

/** One sequential row being measured: its turn (true when it completed), and what was measured so far. */
type Meter = { id: string; label: string; note: string; once: () => Promise<boolean>; samples: string[]; latencies: number[]; failures: number; warmupFailures: number; seconds: number };

/** A meter over `harness.runTurn`: a rejected or non-completed turn is a failure (its first three reasons kept). */
function harnessMeter(id: string, label: string, harness: TurnHarness, note: string): Meter {
  const meter: Meter = { id, label, note, samples: [], latencies: [], failures: 0, warmupFailures: 0, seconds: 0, once: async () => false };
  meter.once = async () => {
    try {
      const result = await harness.runTurn(USER_MESSAGE);
      const status = typeof result === "object" && result !== null && "status" in result ? (result as { status: unknown }).status : "completed";
      if (status === "completed") return true;
      if (meter.samples.length < 3) meter.samples.push(`status ${JSON.stringify(status)}`);
    } catch (error) {
      if (meter.samples.length < 3) meter.samples.push(error instanceof Error ? error.message : String(error));
    }
    return false;
  };
  return meter;
}

async function warmUp(meter: Meter, count: number): Promise<void> {
  for (let i = 0; i < count; i++) if (!(await meter.once())) meter.warmupFailures++;
}

/**
 * `turns` timed turns of each meter, sequential, in alternating blocks of `block` turns (a block of the first, one of
 * the second, …): rows compared with each other see the same machine, whatever it does meanwhile. A row's wall time is
 * the sum of its blocks'.
 */
async function measureInterleaved(meters: Meter[], turns: number, block: number): Promise<Row[]> {
  process.stdout.write(`${meters.map((meter) => meter.label).join(" | ")}: ${turns} turns each${meters.length > 1 ? `, alternating blocks of ${block}` : ""}… `);
  const started = performance.now();
  for (let done = 0; done < turns; done += block) {
    for (const meter of meters) {
      const count = Math.min(block, turns - done);
      const blockStarted = performance.now();
      for (let i = 0; i < count; i++) {
        const t0 = performance.now();
        const ok = await meter.once();
        meter.latencies.push(performance.now() - t0);
        if (!ok) meter.failures++;
      }
      meter.seconds += (performance.now() - blockStarted) / 1000;
    }
  }
  console.log(`${((performance.now() - started) / 1000).toFixed(2)} s`);
  return meters.map((meter) => ({ id: meter.id, label: meter.label, available: true, turns, concurrency: 1, failures: meter.failures, warmupFailures: meter.warmupFailures, seconds: meter.seconds, latencies: meter.latencies, failureSamples: meter.samples, note: meter.note }));
}

/** Warm-up, then `turns` sequential turns of `harness`, each timed. */
async function measureHarness(id: string, label: string, harness: TurnHarness, options: Options, note: string): Promise<Row> {
  const meter = harnessMeter(id, label, harness, note);
  await warmUp(meter, options.inProcessWarmup);
  return (await measureInterleaved([meter], options.inProcessTurns, options.inProcessTurns))[0];
}

/** `turns` turns of `harness` with `inFlight` of them in flight at once (after a warm-up at the same concurrency). */
async function measureInFlight(id: string, label: string, harness: TurnHarness, options: Options, note: string): Promise<Row> {
  const samples: string[] = [];
  const latencies: number[] = [];
  let failures = 0;
  const load = async (count: number, record: boolean) => {
    let next = 0;
    let failed = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        const t0 = performance.now();
        let ok = false;
        try {
          const result = (await harness.runTurn(USER_MESSAGE)) as { status?: unknown };
          ok = result?.status === "completed";
          if (!ok && samples.length < 3) samples.push(`status ${JSON.stringify(result?.status)}`);
        } catch (error) {
          if (samples.length < 3) samples.push(error instanceof Error ? error.message : String(error));
        }
        if (record) latencies.push(performance.now() - t0);
        if (!ok) failed++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.inFlight, count) }, worker));
    return failed;
  };
  const warmupFailures = await load(Math.min(options.inProcessWarmup, options.inFlight * 4), false);
  process.stdout.write(`${label}: ${options.inProcessTurns} turns… `);
  const started = performance.now();
  failures = await load(options.inProcessTurns, true);
  const seconds = (performance.now() - started) / 1000;
  console.log(`${seconds.toFixed(2)} s`);
  return { id, label, available: true, turns: options.inProcessTurns, concurrency: options.inFlight, failures, warmupFailures, seconds, latencies, failureSamples: samples, note };
}

// ---------------------------------------------------------------------------------------------------------------
// (a) over HTTP


/** Builds unless --skip-build finds a build (a build blocked by another `next build` here is retried for up to 5 min). */
async function buildOnce(options: Options): Promise<void> {
  if (options.skipBuild && fs.existsSync(path.join(root, ".next/BUILD_ID"))) {
    console.log("next build: skipped (--skip-build)");
    return;
  }
  await runNode("next build", [path.join(root, "node_modules/next/dist/bin/next"), "build"], root);
}

/**
 * Rows (a) and (h): POST /v1/runs against a fresh server, and beside it the bare Next.js POST (h) with the same body
 * and an answer of the same length; one at a time, then `concurrency` at once. After the warm-ups, each concurrency's
 * requests are split into blocks of BENCH_HTTP_BLOCK taken in turn (a, h, a, h, …), so (a) and (h) see the same
 * machine. One "not available" row when the route is missing.
 */
async function overHttp(options: Options, cleanups: Cleanup[]): Promise<Row[]> {
  await buildOnce(options);
  const baselineDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-baseline-"));
  cleanups.push({ label: "baseline dir", fn: () => fs.rmSync(baselineDir, { recursive: true, force: true }) });
  await createBaselineApp(baselineDir);

  let databaseUrl: string | undefined;
  if (options.backend === "postgresql") {
    const database = await freshPostgresDatabase(options.databaseUrl!);
    cleanups.push({ label: "drop the HTTP row's database", fn: database.drop });
    databaseUrl = database.url;
  }
  const operatorToken = newOperatorToken();
  const server = await startServer({ env: { DATABASE_URL: databaseUrl, KINDGI_OPERATOR_TOKEN: operatorToken } });
  if (server.dataDir) {
    const dataDir = server.dataDir;
    cleanups.push({ label: "PGlite data dir of the server", fn: () => fs.rmSync(dataDir, { recursive: true, force: true }) });
  }
  cleanups.push({ label: "server", fn: server.stop });
  const baseline = await startBaseline(baselineDir);
  cleanups.push({ label: "baseline server", fn: baseline.stop });
  console.log(`server: ${server.baseUrl}, bare Next.js app: ${baseline.baseUrl}`);

  const tenant = await postJson(`${server.baseUrl}/v1/tenants`, operatorToken, { name: "kernel-turns bench" });
  if (tenant.status !== 201) throw new Error(`tenant creation failed: ${tenant.status} ${tenant.text}`);
  const apiKey: string = tenant.json.apiKey.key;
  // The tenant's key is not narrowed to a project, so registration names the tenant's default one.
  const registered = await postJson(`${server.baseUrl}/v1/agents`, apiKey, { ...AGENT, projectId: tenant.json.project.id });
  if (registered.status !== 201) throw new Error(`agent registration failed: ${registered.status} ${registered.text}`);

  const runUrl = `${server.baseUrl}/v1/runs`;
  const runBody = { agent: { id: AGENT.id }, input: { userMessage: USER_MESSAGE }, options: { wait: true } };
  const probe = await postJson(runUrl, apiKey, runBody);
  if (probe.status === 404 && typeof probe.json?.error?.message === "string" && probe.json.error.message.startsWith("no route")) {
    const reason = "(a) not available in this build: POST /v1/runs is not routed";
    console.log(reason);
    await server.stop();
    await baseline.stop();
    return [unavailable("a", "(a) HTTP POST /v1/runs", reason)];
  }
  const refusal = (status: number, text: string) => `${status} ${text.slice(0, 300)}`;
  const turnFailure = (status: number, json: any, text: string): string | undefined => (status === 201 && json?.status === "completed" ? undefined : refusal(status, text));
  const probeFailure = turnFailure(probe.status, probe.json, probe.text);
  if (probeFailure) console.warn(`WARNING: the first turn failed: ${probeFailure}`);

  const client = loadClient(options.client, options.concurrency);
  cleanups.push({ label: "the load client's connections", fn: () => client.close() });
  const runHeaders = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
  const runText = JSON.stringify(runBody);
  // The bare route answers {ok, body, padding}: padded to the length of a run's answer.
  const padding = Math.max(0, probe.text.length - JSON.stringify({ ok: true, body: runBody, padding: "" }).length);
  const echoUrl = `${baseline.baseUrl}/echo?bytes=${padding}`;
  const echoHeaders = { "Content-Type": "application/json" };
  const targets = [
    { id: "a", label: "(a) HTTP", note: "POST /v1/runs wait:true, 201 + completed", url: runUrl, headers: runHeaders, failure: turnFailure },
    { id: "h", label: "(h) bare Next.js POST", note: "same body, answer as long as (a)'s", url: echoUrl, headers: echoHeaders, failure: (status: number, json: any, text: string) => (status === 201 && json?.ok === true ? undefined : refusal(status, text)) },
  ];
  const echo = await client.request(echoUrl, { method: "POST", headers: echoHeaders, body: runText });
  console.log(`answer lengths: (a) ${probe.text.length} characters, (h) ${echo.text.length}${echo.text.length === probe.text.length ? "" : " (NOT the same)"}`);
  type Tally = { latencies: number[]; samples: string[]; failures: number; seconds: number };
  const load = async (target: (typeof targets)[number], count: number, concurrency: number, tally: Tally) => {
    let next = 0;
    const worker = async () => {
      while (next < count && !interrupted) {
        next++;
        const t0 = performance.now();
        let failure: string | undefined;
        try {
          const response = await client.request(target.url, { method: "POST", headers: target.headers, body: runText });
          failure = target.failure(response.status, jsonOrUndefined(response.text), response.text);
        } catch (error) {
          failure = String(error);
        }
        tally.latencies.push(performance.now() - t0);
        if (failure) {
          tally.failures++;
          if (tally.samples.length < 3) tally.samples.push(failure);
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    if (interrupted) throw new Error("interrupted");
    tally.seconds += (performance.now() - started) / 1000;
  };

  const rows: Row[] = [];
  for (const [suffix, concurrency] of [["1", 1], ["8", options.concurrency]] as const) {
    const warm = targets.map(() => ({ latencies: [], samples: [], failures: 0, seconds: 0 }) as Tally);
    const measured = targets.map(() => ({ latencies: [], samples: [], failures: 0, seconds: 0 }) as Tally);
    for (const [i, target] of targets.entries()) await load(target, options.httpWarmup, concurrency, warm[i]);
    process.stdout.write(`${targets.map((target) => target.label).join(" | ")}, concurrency ${concurrency}: ${options.httpTurns} each, alternating blocks of ${options.httpBlock}… `);
    const started = performance.now();
    for (let done = 0; done < options.httpTurns; done += options.httpBlock)
      for (const [i, target] of targets.entries()) await load(target, Math.min(options.httpBlock, options.httpTurns - done), concurrency, measured[i]);
    console.log(`${((performance.now() - started) / 1000).toFixed(2)} s`);
    for (const [i, target] of targets.entries())
      rows.push({ id: `${target.id}${suffix}`, label: `${target.label}, concurrency ${concurrency}`, available: true, turns: options.httpTurns, concurrency, failures: measured[i].failures, warmupFailures: warm[i].failures, seconds: measured[i].seconds, latencies: measured[i].latencies, failureSamples: [...measured[i].samples, ...warm[i].samples].slice(0, 3), note: target.note });
  }
  // The next rows run in this process: the servers must not compete for the CPU (stopping twice is harmless).
  await server.stop();
  await baseline.stop();
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------
// (b) our kernel in-process

/** The module the lead's kernel provides for this row, as a file under the repository (any of these extensions). */
const HARNESS_MODULE = "lib/services/kernel-bench-harness";

/**
 * Row (b): `createBenchHarness()` from `@/lib/services/kernel-bench-harness`, in this process. The database is the one the
 * environment names, as for the app: this script sets DATABASE_URL to a fresh PostgreSQL database, or (PGlite)
 * removes DATABASE_URL and sets KINDGI_DATA_DIR to a fresh temp dir; both are removed at the end. The harness
 * migrates it and creates its own tenant and agent. No figure at all when the module is absent.
 */
async function kernelInProcess(options: Options, cleanups: Cleanup[]): Promise<{ rows: Row[] }> {
  const label = "(b) kernel in-process";
  if (![".ts", ".mts", ".js", ".mjs"].some((ext) => fs.existsSync(path.join(root, HARNESS_MODULE + ext)))) {
    console.log("(b) not available in this build");
    return { rows: [unavailable("b", label, "(b) not available in this build")] };
  }
  if (options.backend === "postgresql") {
    const database = await freshPostgresDatabase(options.databaseUrl!);
    cleanups.push({ label: "drop the in-process row's database", fn: database.drop });
    process.env.DATABASE_URL = database.url;
  } else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-kernel-"));
    cleanups.push({ label: "PGlite data dir of the in-process row", fn: () => fs.rmSync(dataDir, { recursive: true, force: true }) });
    delete process.env.DATABASE_URL;
    process.env.KINDGI_DATA_DIR = path.join(dataDir, "pgdata");
  }
  // A computed specifier: the root type-check must not need the module while the kernel is being written.
  const specifier = `@/${HARNESS_MODULE}`;
  const { createBenchHarness } = (await import(specifier)) as { createBenchHarness: () => Promise<TurnHarness & { sample(): Promise<BenchTurnSample> }> };
  const harness = await createBenchHarness();
  let floor: Floor | null = null;
  let minimal: Floor | null = null;
  try {
    const meter = harnessMeter("b", label, harness, "runTurn(\"UTC\"), sequential");
    await warmUp(meter, Math.max(1, options.inProcessWarmup));
    // The floor replays the journal of a turn the kernel wrote; (b) and (f) then run in alternating blocks.
    const sample = await harness.sample();
    const meters = [meter];
    if (options.rows.has("f")) {
      floor = await openFloor(options, cleanups, sample);
      await warmUp(floor.meter, options.inProcessWarmup);
      meters.push(floor.meter);
    }
    if (options.rows.has("m")) {
      minimal = await openMinimalFloor(options, cleanups);
      await warmUp(minimal.meter, options.inProcessWarmup);
      meters.push(minimal.meter);
    }
    const sequential = await measureInterleaved(meters, options.inProcessTurns, options.block);
    const inFlight = await measureInFlight("b50", `(b50) kernel in-process, ${options.inFlight} in flight`, harness, options, `runTurn("UTC"), ${options.inFlight} at once`);
    return { rows: [sequential[0], inFlight, ...sequential.slice(1)] };
  } finally {
    await floor?.close();
    await minimal?.close();
    await harness.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (f) the raw-driver floor

type RawQuery = (sql: string, params: unknown[]) => Promise<unknown>;

/**
 * The three commits of the sampled turn, as the kernel writes them: the run with run-created and turn-started; the
 * model's tool call with the in-commit tool's start and result; the final answer with run-completed.
 */
function floorCommits(sample: BenchTurnSample): (runId: string, owner: string) => { sql: string; params: unknown[] }[] {
  const types = sample.events.map((event) => event.type).join(",");
  const expected = "run-created,turn-started,model-called,tool-call-started,tool-call-completed,model-called,run-completed";
  if (types !== expected) throw new Error(`(f): the sampled turn's journal is ${types}, not ${expected}`);
  const of = <T>(i: number) => sample.events[i].data as T;
  const bare = (event: JournalEvent) => ({ type: event.type, data: event.data }) as JournalEvent;
  const started = of<TurnStartedData>(1);
  const usage = (data: ModelCalledData) => ({ inputTokens: data.usage.inputTokens, outputTokens: data.usage.outputTokens, costUsd: data.costUsd, modelCalls: 1 });
  const [created, turnStarted, toolStep, callStarted, callCompleted, answer, completed] = sample.events.map(bare);
  return (runId, owner) => [
    {
      sql: CREATE_RUN_SQL,
      params: createRunParams({
        id: runId,
        tenantId: sample.tenantId,
        projectId: sample.projectId,
        kind: "agent-turn",
        agentId: sample.agentId,
        agentVersion: sample.agentVersion,
        conversationId: null,
        attended: true,
        origin: sample.origin,
        toolsAllowedUnattended: [],
        createdBy: sample.createdBy,
        userMessage: sample.userMessage,
        parameters: sample.parameters,
        events: [created, turnStarted],
        patch: { status: "running", startedAt: new Date(), resolvedTools: started.resolvedTools, providerId: started.provider.id, model: started.provider.model, retrievedFacts: started.facts },
        lease: { owner, ms: 30_000 },
      }),
    },
    { sql: APPEND_SQL, params: appendParams(runId, owner, [toolStep, callStarted, callCompleted], { addUsage: usage(of<ModelCalledData>(2)), addToolCalls: 1 }) },
    { sql: APPEND_SQL, params: appendParams(runId, owner, [answer, completed], { addUsage: usage(of<ModelCalledData>(5)), status: "completed", finishedAt: new Date(), output: (completed.data as { output: unknown }).output }) },
  ];
}

/** The schema's migrations, in order, as SQL text (applied directly: the floor's database has nothing else). */
function migrationSql(): string[] {
  const dir = path.join(root, "prisma/migrations");
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
}

type Floor = { meter: Meter; close: () => Promise<void> };

/** Row (f): the sampled turn's commits replayed on the bare driver of the backend, in a fresh database. */
async function openFloor(options: Options, cleanups: Cleanup[], sample: BenchTurnSample): Promise<Floor> {
  const label = options.backend === "postgresql" ? "(f) floor: pg, prepared" : "(f) floor: PGlite thread, prepared";
  const commits = floorCommits(sample);
  let query: RawQuery;
  let close: () => Promise<void>;
  if (options.backend === "postgresql") {
    const database = await freshPostgresDatabase(options.databaseUrl!);
    cleanups.push({ label: "drop the floor row's database", fn: database.drop });
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    for (const sql of migrationSql()) await pool.query(sql);
    query = (sql, params) => pool.query({ name: statementName({ sql }), text: sql, values: params });
    close = () => pool.end();
  } else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-floor-"));
    cleanups.push({ label: "PGlite data dir of the floor row", fn: () => fs.rmSync(dataDir, { recursive: true, force: true }) });
    const { PGliteThread } = await import("../lib/db/pglite-thread");
    const db = new PGliteThread(path.join(dataDir, "pgdata"));
    for (const sql of migrationSql()) await db.exec(sql);
    // The kernel's driver on PGlite: the database on its own thread, the same named statements prepared there once
    // (Parse), then Bind/Execute/Sync per call.
    const prepared = pgliteRawQuery(db);
    query = (sql, params) => prepared(sql, params);
    close = () => db.close();
  }
  const owner = "bench-floor";
  const meter: Meter = { id: "f", label, note: "3 commits of 1 statement each, no kernel", samples: [], latencies: [], failures: 0, warmupFailures: 0, seconds: 0, once: async () => {
    for (const { sql, params } of commits(crypto.randomUUID(), owner)) await query(sql, params);
    return true;
  } };
  return { meter, close };
}

/**
 * Row (m): the least a durable turn of three commits can cost on this PostgreSQL — three single-row INSERTs into a bare
 * table, each its own (autocommit) transaction, through `pg` with a named prepared statement, in a fresh database.
 */
async function openMinimalFloor(options: Options, cleanups: Cleanup[]): Promise<Floor> {
  const database = await freshPostgresDatabase(options.databaseUrl!);
  cleanups.push({ label: "drop the minimal floor row's database", fn: database.drop });
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await pool.query("CREATE TABLE IF NOT EXISTS bench_floor (id bigserial PRIMARY KEY, run text NOT NULL, step int NOT NULL, at timestamptz NOT NULL DEFAULT now())");
  const insert = "INSERT INTO bench_floor (run, step) VALUES ($1, $2)";
  const meter: Meter = { id: "m", label: "(m) minimal floor: pg, 3 INSERTs", note: "3 autocommit single-row INSERTs, bare table", samples: [], latencies: [], failures: 0, warmupFailures: 0, seconds: 0, once: async () => {
    const run = crypto.randomUUID();
    for (let step = 0; step < 3; step++) await pool.query({ name: "bench_floor_insert", text: insert, values: [run, step] });
    return true;
  } };
  return { meter, close: () => pool.end() };
}

// ---------------------------------------------------------------------------------------------------------------
// (c) the peer library

/** Installs bench/'s own dependencies (the peer library) when they are not there yet. */
function ensurePeerInstalled(): void {
  if (fs.existsSync(path.join(benchDir, "node_modules/ai/package.json"))) return;
  console.log("installing bench/ dependencies (npm ci --prefix bench)…");
  const result = spawnSync("npm", ["ci", "--prefix", benchDir, "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`npm ci --prefix bench failed (${result.status ?? result.signal})`);
}

/** Row (c): the peer library's tool loop with a fake model, in memory. */
async function peerInMemory(options: Options): Promise<Row> {
  ensurePeerInstalled();
  // A computed URL: the peer module (and `ai`) exist only under bench/, outside the root type-check.
  const peer = (await import(pathToFileURL(path.join(benchDir, "peer/ai-sdk-turn.mts")).href)) as { createPeerHarness: () => Promise<TurnHarness> };
  const version = (JSON.parse(fs.readFileSync(path.join(benchDir, "node_modules/ai/package.json"), "utf8")) as { version: string }).version;
  const harness = await peer.createPeerHarness();
  try {
    return await measureHarness("c", `(c) peer: ai ${version}`, harness, options, "generateText + MockLanguageModelV3, in memory");
  } finally {
    await harness.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (g), (d) the durable peers

/** The version of a package installed under bench/node_modules, or null when it is not there. */
function benchPackageVersion(name: string): string | null {
  const file = path.join(benchDir, "node_modules", name, "package.json");
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version : null;
}

/**
 * Rows (g) and (d): LangGraph with its PostgresSaver checkpointer, and DBOS, each running the turn as a new durable
 * execution on this PostgreSQL server, each in a fresh database of its own (dropped at the end). Each warms up alone,
 * then the two run in alternating blocks of BENCH_BLOCK turns. A peer whose packages are not in bench/node_modules
 * gets a row saying so.
 */
async function durablePeers(options: Options, cleanups: Cleanup[]): Promise<Row[]> {
  ensurePeerInstalled();
  const notInstalled = "(not installed: npm ci --prefix bench)";
  const peers = [
    { id: "g", file: "langgraph-turn.mts", packages: ["@langchain/langgraph", "@langchain/langgraph-checkpoint-postgres", "@langchain/core"], label: (v: (string | null)[]) => `(g) peer: LangGraph ${v[0]} + PostgresSaver ${v[1]}`, note: "StateGraph model→tools→model, new thread_id per turn" },
    { id: "d", file: "dbos-turn.mts", packages: ["@dbos-inc/dbos-sdk"], label: (v: (string | null)[]) => `(d) peer: DBOS ${v[0]}`, note: "new workflow per turn, model and tool calls as steps" },
  ].filter((peer) => options.rows.has(peer.id as RowId));
  const rows: Row[] = [];
  const meters: Meter[] = [];
  const harnesses: TurnHarness[] = [];
  try {
    for (const peer of peers) {
      const versions = peer.packages.map(benchPackageVersion);
      if (versions.includes(null)) {
        const label = peer.label(versions.map((v) => v ?? "?"));
        console.log(`${label}: ${notInstalled}`);
        rows.push(unavailable(peer.id, label, notInstalled));
        continue;
      }
      const database = await freshPostgresDatabase(options.databaseUrl!);
      cleanups.push({ label: `drop the database of row (${peer.id})`, fn: database.drop });
      // A computed URL: the peer modules (and their libraries) exist only under bench/, outside the root type-check.
      const module = (await import(pathToFileURL(path.join(benchDir, "peer", peer.file)).href)) as { createPeerHarness: (databaseUrl: string) => Promise<TurnHarness> };
      const harness = await module.createPeerHarness(database.url);
      harnesses.push(harness);
      const meter = harnessMeter(peer.id, peer.label(versions), harness, peer.note);
      await warmUp(meter, Math.max(1, options.inProcessWarmup));
      meters.push(meter);
    }
    if (meters.length > 0) {
      const measuredRows = await measureInterleaved(meters, options.inProcessTurns, options.block);
      rows.push(...measuredRows);
    }
  } finally {
    for (const harness of harnesses) await harness.close();
  }
  return peers.map((peer) => rows.find((row) => row.id === peer.id)!);
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { cleanups, release } = cleanupOnExit("stopping the server and removing temp data…", () => (interrupted = true));

  const cpus = os.cpus();
  const machine = { cpus: cpus.length, cpuModel: cpus[0]?.model.trim() ?? "unknown", platform: `${os.platform()} ${os.arch()}`, node: process.version, loadAverage: os.loadavg().map((n) => Number(n.toFixed(2))) };
  const backend = options.backend === "postgresql" ? `PostgreSQL (${new URL(options.databaseUrl!).host}, fresh database per row)` : "PGlite (embedded, fresh data dir per row)";
  console.log(`machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.platform}, node ${machine.node}, load average ${machine.loadAverage.join(" ")}`);
  console.log(`backend: ${backend}  (rows a, b${options.backend === "postgresql" ? ", f, m, g, d" : ", f"}; row c has no database)`);
  console.log(`turn: dev-echo → current-time {} (UTC) → answer (2 model calls + 1 tool call)`);
  console.log(`turns: HTTP ${options.httpTurns} (+${options.httpWarmup} warm-up, concurrency 1 and ${options.concurrency}, client ${options.client === "http" ? "node:http keep-alive" : "fetch"}), in-process ${options.inProcessTurns} (+${options.inProcessWarmup} warm-up)\n`);

  const rows: Row[] = [];
  try {
    if (options.rows.has("a")) rows.push(...(await overHttp(options, cleanups)));
    if (options.rows.has("b")) {
      rows.push(...(await kernelInProcess(options, cleanups)).rows);
    }
    if (options.rows.has("c")) rows.push(await peerInMemory(options));
    if (options.rows.has("g") || options.rows.has("d")) rows.push(...(await durablePeers(options, cleanups)));
  } finally {
    await release();
  }

  console.log("");
  for (const line of tableLines(rows)) console.log(line);
  const ratio = ratioOf(rows);
  if (ratio !== null) console.log(`\nratio row(b)/row(f), p50, ${options.backend}: ${ratio.toFixed(2)}×`);
  for (const line of quarterLines(rows)) console.log(line);
  const against = againstKernelLines(rows);
  if (against.length) console.log("");
  for (const line of against) console.log(line);
  for (const line of httpLines(rows)) console.log(line);
  const judged = verdicts(rows, options.backend);
  if (judged.length) console.log("");
  for (const line of judged) console.log(line);
  for (const row of rows.filter((r) => r.failures > 0 || r.warmupFailures > 0))
    console.warn(`\nWARNING: ${row.label}: ${row.failures} failed turns (+${row.warmupFailures} in the warm-up)${row.failures ? "; its figures are not valid" : ""}. Samples: ${row.failureSamples.join(" | ")}`);
  console.log(JSON.stringify({ bench: "kernel-turns", machine, backend: options.backend, turn: "dev-echo current-time UTC", warmup: { http: options.httpWarmup, inProcess: options.inProcessWarmup }, rows: rows.map(figures), ratioBToF: ratio === null ? null : Number(ratio.toFixed(2)) }));
  if (rows.some((row) => row.failures > 0)) process.exitCode = 1;
}

main().catch((error) => {
  if (!interrupted) console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
