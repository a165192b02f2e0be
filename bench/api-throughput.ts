/**
 * API throughput benchmark against a real `next start` (production build), on 127.0.0.1 only.
 *
 * Run:
 *   npx tsx bench/api-throughput.ts                                  # embedded PGlite
 *   npx tsx bench/api-throughput.ts --backend pg                     # PostgreSQL at $DATABASE_URL, or the local default
 *   DATABASE_URL=postgresql://kindgi:kindgi@127.0.0.1:5432/kindgi npx tsx bench/api-throughput.ts
 * Flags: --concurrency N (16), --post-requests N (1000), --list-requests N (1000), --empty-requests N (3000), --constant-requests N (3000),
 *        --warmup N (2000), --settle N (100), --rounds N (5), --client http|fetch (http), --skip-build (reuse the existing .next build as is),
 *        --scenarios post,list,whoami,bare-post,bare,control (all six; a subset measures only those, in that order: for example
 *        `--scenarios post --post-requests 4500 --rounds 3` is POST /v1/tools alone, in three blocks of 1,500).
 * With PostgreSQL a fresh database is created on that server for the run (needs CREATEDB) and dropped at the end.
 *
 * What it measures, each scenario with a fixed number of requests issued by N concurrent workers (`node:http` with N
 * keep-alive connections, or Node's fetch with --client fetch: see `loadClient` in bench/common.ts), after a warm-up of --warmup requests that are not counted (see "Warm-up" below):
 *   1. POST /v1/tools             – registers a distinct tool manifest per request (new id each time).
 *   2. GET  /v1/tools?limit=100   – lists tools once at least 300 are registered (every page holds 100 items).
 *   3. GET  /v1/identity/whoami   – the cheapest authenticated /v1 read (API key → actor, then the caller's identity):
 *                                   what the route wrapper and auth cost on top of Next.js (both served from the
 *                                   per-tenant cache when warm).
 *   4. POST /echo (bare POST)     – requests with the same headers and bodies as 1's (new manifests of the same size), parsed and
 *                                   answered by a bare Next.js route handler of the baseline app (see 5): what any
 *                                   Next.js POST route of these bodies costs. Not a target; it shows how far 1's p99 is
 *                                   from the floor Next.js sets on this machine in this run.
 *   5. GET  /constant (baseline)  – a bare Next.js route handler returning constant JSON, in a minimal Next app built
 *                                   at run time in a temp directory, with the product's `compress: false` (by default
 *                                   the product leaves gzip to a reverse proxy); it shows the floor set by Next.js itself.
 *                                   Every "vs bare" share is of this row.
 *   6. GET  /constant (control)   – the same route on a second server of the same baseline app, warmed up as much as
 *                                   the first: not a target. Two servers running the same code do not serve the same
 *                                   rate (on these 2-core machines, four identical bare servers measured in turn gave
 *                                   92-101 % of the first's rate, each one steadily), so its share of the first shows
 *                                   how much of any share in the run is the luck of the server process.
 * Warm-up: it takes each server to its steady rate before it is measured (the JIT compiles a route's hot code only after
 * many calls): 2,000 requests per scenario, after which the rates by round stay flat (with the former 500 every row,
 * the bare route's included, still rose by 1.4-1.9x from the first round to the last; with 50 far more). Then both
 * servers are evened up: the one that got fewer warm-up requests (the bare app: its two scenarios against the product's
 * three and the list's top-up) gets the difference as extra requests (GET /constant, or GET /v1/identity/whoami on the
 * product), so that neither Next.js server is measured warmer than the other, and the control server gets as many as
 * the bare app. The warm-up runs in 4 passes of the scenarios in turn, each pass ending with that evening up, so that no
 * server waits long before its first measured block: warmed up one server after another, the product's waited through
 * about 12,000 requests to the other two (the bare app's warm-ups and evening up, the control server's), and on PGlite
 * its first blocks were slow (POST /v1/tools 402 requests a second in round 1 against 899-996 in the others, its p99
 * 66.8 ms against 26.9-35.4).
 * Rounds: both servers run side by side, but only one is under load at a time. After the warm-ups, each scenario's
 * requests are split into --rounds blocks (5), run in turn (POST, list, whoami, bare POST, bare, then again), so the rows of a
 * ratio see the same machine even when its speed drifts during the run (on these shared machines it does, by more than
 * the differences measured).
 * Settling: taking turns leaves each server idle while the others are measured (the product's, between two rounds,
 * for about 1,700 requests: the bare POST's, the bare route's and the control's blocks and their settling; before its
 * first block, for about 3,000: the last warm-up pass's). On these machines any server answers its first
 * requests after an idle spell slowly: after 8 s idle, the 16 requests in flight when load resumed took up to 160 ms
 * on the bare app (POST /echo) and up to 290 ms on the product (POST /v1/tools), answered one after the other, against a
 * p99 of 36-55 ms in the next block. So each block is preceded by --settle requests of its own scenario, not counted,
 * the same for every row: the rows measure a server under the sustained load their targets speak of.
 * Each scenario's rate in each round is printed too, so a run shows whether a server was still warming up, and each row's
 * share of the bare route's rate round by round (median and range), so a run shows how far the machine moved the shares
 * while it ran; the targets are judged on the whole run's rates, as the table gives them.
 * Throughput = counted requests / the sum of the scenario's blocks' wall times; latency = time until the response body is fully read.
 * Errors = non-2xx responses plus failed requests (network error, 30 s timeout); they must be 0.
 * All servers are stopped and temp directories (PGlite data, baseline app) removed at the end, also on failure.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { benchToolManifest, cleanupOnExit, DEFAULT_PG_URL, loadClient, percentile, postJson, type LoadClient } from "./common";
import { freshPostgresDatabase, newOperatorToken, root, startServer } from "../tests/helpers/server";
import { createBaselineApp, runNode, startBaseline } from "./baseline-app";
import { BARE_POST, BASELINE, CONTROL, evenUpPlan, LIST_TOOLS, passShare, POST_TOOLS, roundLines, tableLines, verdicts, WHOAMI, type Result, type WarmCounts } from "./api-report";

const MIN_TOOLS_FOR_LIST = 300;
/** The warm-up's passes (see "Warm-up" above). */
const WARMUP_PASSES = 4;
const nextBin = path.join(root, "node_modules/next/dist/bin/next");
/** Set on SIGINT/SIGTERM: the load loops stop issuing requests and the run unwinds to its cleanup. */
let interrupted = false;

type Options = {
  concurrency: number;
  /** Also the bare POST's count. */
  postRequests: number;
  listRequests: number;
  emptyRequests: number;
  constantRequests: number;
  warmup: number;
  /** Untimed requests of a block's own scenario right before it (see "Settling"). */
  settle: number;
  backend: "pglite" | "postgresql";
  databaseUrl?: string;
  skipBuild: boolean;
  client: "http" | "fetch";
  rounds: number;
  /** The scenarios measured (keys of {@link SCENARIO_KEYS}), in their fixed order. */
  scenarios: ScenarioKey[];
};

const SCENARIO_KEYS = ["post", "list", "whoami", "bare-post", "bare", "control"] as const;
type ScenarioKey = (typeof SCENARIO_KEYS)[number];

function parseArgs(argv: string[]): Options {
  const options: Options = { concurrency: 16, postRequests: 1000, listRequests: 1000, emptyRequests: 3000, constantRequests: 3000, warmup: 2000, settle: 100, backend: "pglite", skipBuild: false, client: "http", rounds: 5, scenarios: [...SCENARIO_KEYS] };
  let backendFlag: string | undefined;
  const positiveInt = (flag: string, value: string | undefined, min: number): number => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < min) throw new Error(`${flag} needs an integer >= ${min}, got ${value ?? "nothing"}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case "--concurrency":
        options.concurrency = positiveInt(flag, value(), 1);
        break;
      case "--post-requests":
        options.postRequests = positiveInt(flag, value(), 1);
        break;
      case "--list-requests":
        options.listRequests = positiveInt(flag, value(), 1);
        break;
      case "--empty-requests":
        options.emptyRequests = positiveInt(flag, value(), 1);
        break;
      case "--constant-requests":
        options.constantRequests = positiveInt(flag, value(), 1);
        break;
      case "--warmup":
        options.warmup = positiveInt(flag, value(), 0);
        break;
      case "--settle":
        options.settle = positiveInt(flag, value(), 0);
        break;
      case "--rounds":
        options.rounds = positiveInt(flag, value(), 1);
        break;
      case "--backend":
        backendFlag = value();
        break;
      case "--skip-build":
        options.skipBuild = true;
        break;
      case "--client": {
        const client = value();
        if (client !== "http" && client !== "fetch") throw new Error(`--client must be http or fetch, got ${client ?? "nothing"}`);
        options.client = client;
        break;
      }
      case "--scenarios": {
        const given = (value() ?? "").split(",").map((key) => key.trim()).filter(Boolean);
        const unknown = given.filter((key) => !(SCENARIO_KEYS as readonly string[]).includes(key));
        if (given.length === 0 || unknown.length) throw new Error(`--scenarios takes a comma-separated list of ${SCENARIO_KEYS.join(", ")}; got ${unknown.length ? unknown.join(", ") : "nothing"}`);
        options.scenarios = SCENARIO_KEYS.filter((key) => given.includes(key));
        break;
      }
      case "--help":
      case "-h":
        console.log("usage: npx tsx bench/api-throughput.ts [--backend pglite|pg] [--concurrency N] [--post-requests N] [--list-requests N] [--empty-requests N] [--constant-requests N] [--warmup N] [--settle N] [--rounds N] [--client http|fetch] [--scenarios post,list,whoami,bare-post,bare,control] [--skip-build]");
        process.exit(0);
      default:
        throw new Error(`unknown argument ${arg} (try --help)`);
    }
  }
  if (backendFlag === "pg" || backendFlag === "postgres" || backendFlag === "postgresql") {
    options.backend = "postgresql";
    options.databaseUrl = process.env.DATABASE_URL || DEFAULT_PG_URL;
  } else if (backendFlag === "pglite") {
    options.backend = "pglite";
  } else if (backendFlag !== undefined) {
    throw new Error(`--backend must be pglite or pg, got ${backendFlag}`);
  } else if (process.env.DATABASE_URL) {
    options.backend = "postgresql";
    options.databaseUrl = process.env.DATABASE_URL;
  }
  return options;
}

// ---------------------------------------------------------------------------------------------------------------
// Load generation

type RequestSpec = { method: string; url: string; headers?: Record<string, string>; body?: string };

/** Issues `count` requests built by `make(i)` with `concurrency` workers; every response body is read in full. */
async function runLoad(client: LoadClient, scenario: string, count: number, concurrency: number, make: (i: number) => RequestSpec): Promise<Result> {
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  let next = 0;
  const worker = async () => {
    while (next < count && !interrupted) {
      const spec = make(next++);
      const started = performance.now();
      try {
        const response = await client.request(spec.url, spec);
        const text = response.text;
        latencies.push(performance.now() - started);
        if (response.status < 200 || response.status > 299) {
          errors++;
          if (errorSamples.length < 3) errorSamples.push(`${response.status} ${text.slice(0, 200)}`);
        }
      } catch (error) {
        latencies.push(performance.now() - started);
        errors++;
        if (errorSamples.length < 3) errorSamples.push(String(error));
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { scenario, requests: count, concurrency, seconds, latencies, errors, errorSamples, warmupErrors: 0, roundRates: [], roundP99s: [] };
}

type Scenario = { key: ScenarioKey; name: string; count: number; make: (i: number) => RequestSpec };

/** Part of one scenario's warm-up (not counted): its errors, with a warning when there are any. */
async function warmUp(client: LoadClient, scenario: Scenario, count: number, options: Options): Promise<number> {
  if (count === 0) return 0;
  const warm = await runLoad(client, `${scenario.name} (warm-up)`, count, options.concurrency, scenario.make);
  if (warm.errors) console.warn(`WARNING: ${warm.errors} errors during the warm-up of ${scenario.name}: ${warm.errorSamples.join(" | ")}`);
  return warm.errors;
}

/**
 * The measured runs: every scenario's requests split into `options.rounds` blocks, run in turn (block 1 of each
 * scenario, then block 2 of each, …), so the rows compared with each other see the same machine even when its speed
 * drifts during the run. A row's time is the sum of its blocks' times, its latencies all of theirs.
 */
async function measureRounds(client: LoadClient, scenarios: Scenario[], warmupErrors: number[], options: Options): Promise<Result[]> {
  const results: Result[] = scenarios.map((scenario, i) => ({ scenario: scenario.name, requests: 0, concurrency: options.concurrency, seconds: 0, latencies: [], errors: 0, errorSamples: [], warmupErrors: warmupErrors[i], roundRates: [], roundP99s: [] }));
  const issued = scenarios.map(() => 0);
  for (let round = 0; round < options.rounds; round++) {
    process.stdout.write(`round ${round + 1}/${options.rounds}: `);
    for (const [i, scenario] of scenarios.entries()) {
      const size = passShare(scenario.count, round, options.rounds);
      if (size === 0) continue;
      if (options.settle > 0) {
        const settle = await runLoad(client, `${scenario.name} (settling)`, options.settle, options.concurrency, scenario.make);
        if (settle.errors) throw new Error(`${scenario.name}: ${settle.errors} errors while settling: ${settle.errorSamples.join(" | ")}`);
      }
      const offset = issued[i];
      const block = await runLoad(client, scenario.name, size, options.concurrency, (n) => scenario.make(offset + n));
      if (interrupted) throw new Error("interrupted");
      issued[i] += size;
      const row = results[i];
      row.requests += block.requests;
      row.seconds += block.seconds;
      row.latencies.push(...block.latencies);
      row.errors += block.errors;
      row.roundRates.push(block.requests / block.seconds);
      row.roundP99s.push(percentile([...block.latencies].sort((a, b) => a - b), 99));
      row.errorSamples.push(...block.errorSamples.slice(0, 3 - row.errorSamples.length));
    }
    console.log("done");
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------------------
// Servers

let manifestCounter = 0;
const runTag = Date.now().toString(36);
/** A distinct tool manifest: a new id each call. */
function toolManifest() {
  manifestCounter += 1;
  return benchToolManifest(`bench.tool-${runTag}-${manifestCounter}`);
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  let options: Options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`bench:api: ${(error as Error).message}`);
    process.exitCode = 2;
    return;
  }
  const { cleanups, release } = cleanupOnExit("stopping servers and removing temp directories…", () => (interrupted = true));

  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? "unknown"}), ${os.platform()} ${os.arch()}, node ${process.version}, load average ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
  console.log(`backend: ${options.backend === "postgresql" ? `PostgreSQL (${new URL(options.databaseUrl!).host}, fresh database per run)` : "PGlite (embedded, fresh data dir)"}`);
  console.log(`concurrency ${options.concurrency}, warm-up ${options.warmup} requests per scenario and ${options.settle} before each block (not counted), client ${options.client === "http" ? "node:http keep-alive" : "fetch"}\n`);
  const client = loadClient(options.client, options.concurrency);

  const results: Result[] = [];
  try {
    if (options.skipBuild && fs.existsSync(path.join(root, ".next/BUILD_ID"))) console.log("product next build: skipped (--skip-build)");
    else await runNode("product next build", [nextBin, "build"], root);

    const baselineDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-baseline-"));
    cleanups.push({ label: "baseline dir", fn: () => fs.rmSync(baselineDir, { recursive: true, force: true }) });
    await createBaselineApp(baselineDir);

    // --- product server -------------------------------------------------------------------------------------
    let databaseUrl: string | undefined;
    if (options.backend === "postgresql") {
      const database = await freshPostgresDatabase(options.databaseUrl!);
      cleanups.push({ label: "drop database", fn: database.drop });
      databaseUrl = database.url;
    }
    const operatorToken = newOperatorToken();
    const server = await startServer({ env: { DATABASE_URL: databaseUrl, KINDGI_OPERATOR_TOKEN: operatorToken } });
    cleanups.push({ label: "product server", fn: server.stop });
    if (server.dataDir) {
      const dataDir = server.dataDir;
      // Registered after the server, so it runs after the server has stopped (cleanups run in reverse).
      cleanups.splice(cleanups.length - 1, 0, { label: "PGlite data dir", fn: () => fs.rmSync(dataDir, { recursive: true, force: true }) });
    }
    console.log(`product server: ${server.baseUrl}`);

    const tenant = await postJson(`${server.baseUrl}/v1/tenants`, operatorToken, { name: "bench" });
    if (tenant.status !== 201) throw new Error(`tenant creation failed: ${tenant.status} ${tenant.text}`);
    const apiKey: string = tenant.json.apiKey.key;
    const projectId: string = tenant.json.project.id;
    const auth = { Authorization: `Bearer ${apiKey}` };

    const registerTool = (): RequestSpec => ({
      method: "POST",
      url: `${server.baseUrl}/v1/tools`,
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ ...toolManifest(), projectId }),
    });

    // --- baseline server: up beside the product server, loaded only in its own blocks ------------------------
    const baseline = await startBaseline(baselineDir);
    cleanups.push({ label: "baseline server", fn: baseline.stop });
    console.log(`baseline server: ${baseline.baseUrl}`);
    const control = options.scenarios.includes("control") ? await startBaseline(baselineDir) : null;
    if (control) {
      cleanups.push({ label: "control server", fn: control.stop });
      console.log(`control server (a second baseline server): ${control.baseUrl}`);
    }
    // The bare POST's requests: the same headers, and manifests of the same shape and size with the projectId.
    const echoRequest = (): RequestSpec => ({ ...registerTool(), url: `${baseline.baseUrl}/echo` });

    const scenarios: Scenario[] = (
      [
        { key: "post", name: POST_TOOLS, count: options.postRequests, make: registerTool },
        { key: "list", name: LIST_TOOLS, count: options.listRequests, make: () => ({ method: "GET", url: `${server.baseUrl}/v1/tools?limit=100`, headers: auth }) },
        { key: "whoami", name: WHOAMI, count: options.emptyRequests, make: () => ({ method: "GET", url: `${server.baseUrl}/v1/identity/whoami`, headers: auth }) },
        { key: "bare-post", name: BARE_POST, count: options.postRequests, make: echoRequest },
        { key: "bare", name: BASELINE, count: options.constantRequests, make: () => ({ method: "GET", url: `${baseline.baseUrl}/constant` }) },
        { key: "control", name: CONTROL, count: options.constantRequests, make: () => ({ method: "GET", url: `${control!.baseUrl}/constant` }) },
      ] satisfies Scenario[]
    ).filter((scenario) => options.scenarios.includes(scenario.key));
    const warmupErrors = scenarios.map(() => 0);
    /** Tools registered so far (the POST's warm-up registers them too). */
    let registered = 0;
    /** Warm-up requests each server has answered (the tenant's creation and the list's probe included). */
    const warmed: WarmCounts = { product: 1, bare: 0, control: 0 };
    /** Of those, the requests that evened a server up. */
    const evened: WarmCounts = { product: 0, bare: 0, control: 0 };
    const isBare = (key: ScenarioKey) => key === "bare" || key === "bare-post";
    const isProduct = (key: ScenarioKey) => key === "post" || key === "list" || key === "whoami";
    const measured = { product: scenarios.some((item) => isProduct(item.key)), bare: scenarios.some((item) => isBare(item.key)), control: control !== null };
    /** Extra warm-up requests (not counted) that bring a server up to another's count; any error stops the run. */
    const evenUp = async (what: string, count: number, make: () => RequestSpec) => {
      if (count === 0) return;
      const even = await runLoad(client, "even-up", count, options.concurrency, make);
      if (even.errors) throw new Error(`evening up ${what} failed: ${even.errorSamples.join(" | ")}`);
    };
    // The warm-up runs in passes, the scenarios in turn as in the rounds, each pass ending with the servers evened up:
    // so every server has answered about as much as the others at all times, and none sits idle long before its first
    // measured block (the product's, about 3,000 requests to the others with the defaults, against about 1,700 between
    // two rounds; warmed up one server after another, it sat through about 12,000, and its first blocks were slow).
    const passes = Math.min(WARMUP_PASSES, Math.max(1, options.warmup));
    for (let pass = 0; pass < passes; pass++) {
      for (const [i, item] of scenarios.entries()) {
        if (item.key === "list" && pass === 0) {
          // The list pages through at least 300 tools (an untimed top-up when fewer are registered).
          if (registered < MIN_TOOLS_FOR_LIST) {
            const topUp = await runLoad(client, "top-up", MIN_TOOLS_FOR_LIST - registered, options.concurrency, registerTool);
            if (topUp.errors) throw new Error(`registering tools for the list scenario failed: ${topUp.errorSamples.join(" | ")}`);
            registered += topUp.requests;
            warmed.product += topUp.requests;
          }
          warmed.product += 1;
          const probe = await fetch(`${server.baseUrl}/v1/tools?limit=100`, { headers: auth });
          const page = (await probe.json()) as { data?: unknown[] };
          if (probe.status !== 200 || page.data?.length !== 100) throw new Error(`GET /v1/tools?limit=100 returned ${probe.status} with ${page.data?.length} items, expected 100`);
        }
        const count = passShare(options.warmup, pass, passes);
        const errors = await warmUp(client, item, count, options);
        warmupErrors[i] += errors;
        if (item.key === "post") registered += count - errors;
        if (isBare(item.key)) warmed.bare += count;
        else if (item.key === "control") warmed.control += count;
        else warmed.product += count;
      }
      const plan = evenUpPlan(warmed, measured);
      await evenUp("the bare app", plan.toBare, () => ({ method: "GET", url: `${baseline.baseUrl}/constant` }));
      await evenUp("the product", plan.toProduct, () => ({ method: "GET", url: `${server.baseUrl}/v1/identity/whoami`, headers: auth }));
      await evenUp("the control server", plan.toControl, () => ({ method: "GET", url: `${control!.baseUrl}/constant` }));
      for (const [key, extra] of [["bare", plan.toBare], ["product", plan.toProduct], ["control", plan.toControl]] as const) {
        warmed[key] += extra;
        evened[key] += extra;
      }
    }
    console.log(`warm-up: ${passes} ${passes === 1 ? "pass" : "passes"} of the scenarios in turn, the servers evened up after each`);
    if (measured.product && measured.bare) {
      const extras = [evened.bare || !evened.product ? `${evened.bare} more GET /constant to the bare app` : "", evened.product ? `${evened.product} more GET /v1/identity/whoami to the product` : ""];
      console.log(`warm-up: ${warmed.product - evened.product} requests to the product's server, ${warmed.bare - evened.bare} to the bare app's; ${extras.filter(Boolean).join(" and ")} to even them`);
    }
    if (control) console.log(`warm-up: ${evened.control} more GET /constant to the control server (${warmed.control} in all, as the bare app's)`);
    console.log(`measuring: ${scenarios.map((item) => `${item.name} ${item.count}`).join(", ")}; concurrency ${options.concurrency}, in ${options.rounds} rounds`);
    results.push(...(await measureRounds(client, scenarios, warmupErrors, options)));
    await control?.stop();
    await baseline.stop();
    await server.stop();

    console.log("");
    for (const line of tableLines(results)) console.log(line);
    console.log("");
    const rounds = roundLines(results);
    for (const line of rounds) console.log(line);
    if (rounds.length) console.log("");
    for (const line of verdicts(results)) console.log(line);
    const failing = results.filter((r) => r.errors > 0);
    for (const r of failing) console.warn(`\nWARNING: ${r.scenario} had ${r.errors} errors (non-2xx or failed requests); figures are not valid. Samples: ${r.errorSamples.join(" | ")}`);
    if (failing.length) process.exitCode = 1;
  } finally {
    client.close();
    await release();
  }
}

main().catch((error) => {
  if (!interrupted) console.error(error instanceof Error ? error.stack ?? error.message : error);
  process.exitCode = 1;
});
