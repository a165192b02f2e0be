/**
 * Approvals over HTTP against a real server (`next start`, PGlite by default):
 * - decision-to-tool-start latency: a run suspended on the approval of a mutating HTTP tool's call is approved
 *   (POST /v1/approvals/{id}/complete), and a local server timestamps the first byte of the tool's request; one
 *   decision at a time, BENCH_DECISIONS of them (200) after BENCH_WARMUP (20);
 * - the server's memory idle, then with BENCH_SUSPENDED (10000) runs suspended on approvals: its JS heap in use
 *   after a full garbage collection (forced through the inspector of each of its processes; the server is started
 *   with `--inspect=127.0.0.1:0`), and the RSS of its process group (the lowest of 20 samples over 10 s). A
 *   suspended run holds no process, lease or memory, so the heap difference should be near zero.
 *
 * Run: `npm run bench:approvals` (needs a fresh `next build`), or `-- --backend pg` for PostgreSQL at
 * $DATABASE_URL or the local default (a fresh database, dropped at the end). Environment: BENCH_DECISIONS,
 * BENCH_WARMUP, BENCH_SUSPENDED, BENCH_CONCURRENCY (8), BENCH_HEAP_EVERY (also collect and print the heap every N
 * suspended runs). Output: the figures, then one JSON line.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { DEFAULT_PG_URL, mean, percentile, postJson } from "./common";
import { freshPostgresDatabase, newOperatorToken, startServer } from "../tests/helpers/server";

const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
};
const decisions = envInt("BENCH_DECISIONS", 200);
const warmup = envInt("BENCH_WARMUP", 20);
const suspended = envInt("BENCH_SUSPENDED", 10_000);
const concurrency = Math.max(1, envInt("BENCH_CONCURRENCY", 8));
const backend = process.argv.includes("--backend") ? process.argv[process.argv.indexOf("--backend") + 1] : "pglite";

/** RSS (kB) of every process in the process group `pgid` (the server and anything it started). */
function groupRssKb(pgid: number): number {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${entry}/status`, "utf8"));
      if (rss) total += Number(rss[1]);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/**
 * The server's processes, through their inspectors (the server is started with `--inspect=127.0.0.1:0`): each is
 * made to collect its garbage, then asked for its JS heap in use. This separates what the server keeps from what the
 * collector has not freed yet, which RSS alone cannot.
 */
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;

async function collectedHeapBytes(output: string): Promise<number> {
  const urls = [...new Set([...output.matchAll(/Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/g)].map((match) => match[1]))];
  if (!urls.length) throw new Error("the server's inspectors were not found in its output");
  let total = 0;
  for (const url of urls) {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error(`cannot reach the inspector at ${url}`));
    });
    let id = 0;
    const pending = new Map<number, (result: any) => void>();
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data));
      pending.get(data.id)?.(data.result);
    };
    const send = (method: string) => new Promise<any>((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method }));
    });
    // Three collections a second apart (what the first frees may wait on finalizers and timers), the lowest kept.
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      if (i) await new Promise((resolve) => setTimeout(resolve, 1000));
      await send("HeapProfiler.collectGarbage");
      lowest = Math.min(lowest, (await send("Runtime.getHeapUsage")).usedSize as number);
    }
    total += lowest;
    socket.close();
  }
  return total;
}

const RSS_SAMPLES = 20;
/** How long the server is left alone before its memory is measured. */
const SETTLE_MS = 5000;
const RSS_EVERY_MS = 500;

/**
 * The server's RSS once it is quiet: the lowest of 20 samples taken every 500 ms. A single sample mostly measures
 * where the garbage collector happens to be; the lowest after a pause is what the process keeps.
 */
async function settledRssKb(pgid: number): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RSS_SAMPLES; i++) {
    await new Promise((resolve) => setTimeout(resolve, RSS_EVERY_MS));
    lowest = Math.min(lowest, groupRssKb(pgid));
  }
  return lowest;
}

async function getJson(url: string, token: string): Promise<any> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  return response.json();
}

async function main() {
  // The tool's target: timestamps the first byte of each request (the request event fires on its headers).
  const arrivals = new Map<string, number>();
  const target = http.createServer((request, response) => {
    const at = performance.now();
    const word = decodeURIComponent((request.url ?? "").split("/").pop() ?? "");
    arrivals.set(word, at);
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  const port = (target.address() as AddressInfo).port;

  const database = backend === "pg" ? await freshPostgresDatabase(process.env.DATABASE_URL || DEFAULT_PG_URL) : null;
  const operatorToken = newOperatorToken();
  const server = await startServer({ env: { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_DEV_PROVIDERS: "1", KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), NODE_OPTIONS: "--inspect=127.0.0.1:0" } });
  try {
    const base = server.baseUrl;
    const tenant = (await postJson(`${base}/v1/tenants`, operatorToken, { name: "bench approvals" })).json;
    const key: string = tenant.apiKey.key;
    const projectId: string = tenant.project.id;
    const tool = { id: "bench.charge", description: "Charges.", version: "1.0.0", input: { type: "object", properties: { word: { type: "string" } }, required: ["word"] }, output: { type: "object" }, network: { kind: "allowlist", hosts: [`127.0.0.1:${port}`] }, spec: { kind: "http", method: "POST", urlTemplate: `http://127.0.0.1:${port}/charge/{word}`, requestBody: { kind: "json-input" } }, projectId };
    if ((await postJson(`${base}/v1/tools`, key, tool)).status !== 201) throw new Error("tool registration failed");
    const agent = { id: "bench.agent", version: "1.0.0", name: "Bench", instructions: "Charge.", capabilities: [{}], tools: [{ id: "bench.charge", version: "1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId };
    if ((await postJson(`${base}/v1/agents`, key, agent)).status !== 201) throw new Error("agent registration failed");
    const suspend = async (word: string): Promise<string> => {
      const started = await postJson(`${base}/v1/runs`, key, { agent: { id: agent.id }, input: { userMessage: JSON.stringify({ script: [{ toolCalls: [{ name: "bench.charge", arguments: { word } }] }, { text: "ok" }] }) } });
      if (started.json?.status !== "suspended") throw new Error(`run did not suspend: ${started.text.slice(0, 300)}`);
      return started.json.id;
    };

    const latencies: number[] = [];
    const answers: number[] = [];
    for (let i = 0; i < warmup + decisions; i++) {
      const word = `d${i}`;
      const runId = await suspend(word);
      const approval = (await getJson(`${base}/v1/approvals?runId=${runId}`, key)).data[0];
      const before = performance.now();
      const decided = await postJson(`${base}/v1/approvals/${approval.id}/complete`, key, { decision: "approve" });
      const answered = performance.now();
      if (decided.status !== 200) throw new Error(`decision failed: ${decided.text}`);
      for (const until = Date.now() + 10_000; !arrivals.has(word) && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 1));
      if (!arrivals.has(word)) throw new Error(`the tool call of ${runId} never arrived`);
      if (i >= warmup) {
        latencies.push((arrivals.get(word) as number) - before);
        answers.push(answered - before);
      }
    }
    latencies.sort((a, b) => a - b);
    answers.sort((a, b) => a - b);
    const round = (value: number) => Math.round(value * 100) / 100;
    console.log(`decision → tool start (${decisions} decisions, one at a time): p50 ${round(percentile(latencies, 50))} ms, p99 ${round(percentile(latencies, 99))} ms`);

    const pgid = server.process.pid as number;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const idleHeap = await collectedHeapBytes(server.output());
    const idleKb = await settledRssKb(pgid);
    console.log(`idle: JS heap after a full collection ${mb(idleHeap)} MB, RSS ${Math.round(idleKb / 1024)} MB (the lowest of ${RSS_SAMPLES} samples over ${(RSS_SAMPLES * RSS_EVERY_MS) / 1000} s)`);
    let next = 0;
    const begin = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < suspended) {
          const index = next++;
          await suspend(`s${index}`);
          if ((index + 1) % 1000 === 0) console.log(`  ${index + 1} runs suspended, RSS ${Math.round(groupRssKb(pgid) / 1024)} MB, ${Math.round((performance.now() - begin) / 1000)} s${process.env.BENCH_HEAP_EVERY && (index + 1) % Number(process.env.BENCH_HEAP_EVERY) === 0 ? `, JS heap after a collection ${mb(await collectedHeapBytes(server.output()))} MB` : ""}`);
        }
      }),
    );
    const suspendSeconds = (performance.now() - begin) / 1000;
    // As for the idle figure: measured once the server is quiet (the idle one follows the decisions by this much too).
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const suspendedHeap = await collectedHeapBytes(server.output());
    const suspendedKb = await settledRssKb(pgid);
    const counted = await getJson(`${base}/v1/runs?status=suspended&limit=1`, key);

    const figures = {
      backend,
      decisions,
      decisionAnsweredMs: { p50: round(percentile(answers, 50)), p99: round(percentile(answers, 99)) },
      decisionToToolStartMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), mean: round(mean(latencies)) },
      suspendedRuns: suspended,
      suspendSeconds: round(suspendSeconds),
      heapMb: { idle: mb(idleHeap), withSuspended: mb(suspendedHeap), difference: mb(suspendedHeap - idleHeap) },
      heapBytesPerSuspendedRun: suspended ? Math.round((suspendedHeap - idleHeap) / suspended) : 0,
      rssMb: { idle: round(idleKb / 1024), withSuspended: round(suspendedKb / 1024), difference: round((suspendedKb - idleKb) / 1024) },
      bytesPerSuspendedRun: suspended ? Math.round(((suspendedKb - idleKb) * 1024) / suspended) : 0,
      sawSuspended: Array.isArray(counted.data) && counted.data.length === 1,
    };
    console.log(`backend ${backend}`);
    console.log(`decision → tool start (${decisions} decisions, one at a time): p50 ${figures.decisionToToolStartMs.p50} ms, p99 ${figures.decisionToToolStartMs.p99} ms, mean ${figures.decisionToToolStartMs.mean} ms (the decision's own response: p50 ${figures.decisionAnsweredMs.p50} ms, p99 ${figures.decisionAnsweredMs.p99} ms)`);
    console.log(`server JS heap after a full collection: idle ${figures.heapMb.idle} MB, with ${suspended} suspended runs ${figures.heapMb.withSuspended} MB (difference ${figures.heapMb.difference} MB, ${figures.heapBytesPerSuspendedRun} B per run)`);
    console.log(`server RSS: idle ${figures.rssMb.idle} MB, with ${suspended} suspended runs ${figures.rssMb.withSuspended} MB (difference ${figures.rssMb.difference} MB, ${figures.bytesPerSuspendedRun} B per run; suspending took ${figures.suspendSeconds} s)`);
    console.log(JSON.stringify(figures));
  } finally {
    await server.stop();
    target.close();
    // The server's connections may take a moment to close after it stops.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await database?.drop().catch((error: unknown) => console.error(`dropping the bench database failed: ${error instanceof Error ? error.message : String(error)}`));
    if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
