/**
 * Live events across replicas on PostgreSQL:
 * (1) the event bus alone: two buses in this process with connections of their own (two replicas' transports); a
 *     model delta published on one, one at a time (10 ms apart), timed until the other's subscriber has it: what a
 *     delta's crossing costs (the 2 ms sending window, the NOTIFY statement, the listening connection).
 * (2) the approval inbox: two `npm start` replicas on one database (tests/helpers/replicas.ts); a run on A asks for
 *     approval of a mutating HTTP tool's call (POST /v1/runs answers `suspended`), and B's `/v1/approvals/stream` is
 *     timed against A's own stream and against A's answer to the POST. One approval at a time.
 *
 * Run: npx tsx bench/replica-events.ts   (PostgreSQL at $DATABASE_URL or the local default; a fresh database for each
 *      part, dropped at the end; the build must be fresh: `npm run build`)
 * Flags: --messages N (bus crossings, 1000), --approvals N (100), --warmup N (uncounted, 20 of each).
 */
import pg from "pg";
import { DEFAULT_PG_URL, integerFlag, percentile } from "./common";
import { freshPostgresDatabase } from "../tests/helpers/server";
import { startReplicas } from "../tests/helpers/replicas";
import type { RunningServer } from "../tests/helpers/server";
import { readSse, type SseFrame } from "../tests/helpers/sse";
import { sendJson, startRecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { PostgresBus, type BusClient } from "../lib/services/event-bus-postgres";

const baseUrl = process.env.DATABASE_URL || DEFAULT_PG_URL;
const args = process.argv.slice(2);
const flag = (name: string, fallback: number, min: number) => (args.includes(name) ? integerFlag(name, args[args.indexOf(name) + 1], min) : fallback);
const messages = flag("--messages", 1000, 1);
const approvals = flag("--approvals", 100, 1);
const warmup = flag("--warmup", 20, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number) => Math.round(value * 100) / 100;
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p90: round(percentile(sorted, 90)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1]) };
};

async function busCrossing() {
  const database = await freshPostgresDatabase(baseUrl);
  const newBus = () => new PostgresBus({ createClient: () => new pg.Client({ connectionString: database.url }) as unknown as BusClient });
  const a = newBus();
  const b = newBus();
  try {
    await Promise.all([a.ready, b.ready]);
    const arrivals = new Map<number, number>();
    b.subscribe("delta:bench", (message) => {
      const index = Number((message as { text?: string } | null)?.text?.split(" ")[0]);
      if (Number.isFinite(index)) arrivals.set(index, performance.now());
    });
    const crossings: number[] = [];
    for (let i = 0; i < warmup + messages; i++) {
      const sent = performance.now();
      a.publish("delta:bench", { callIndex: 0, attempt: 1, text: `${i} ${"word ".repeat(8)}` });
      while (!arrivals.has(i)) {
        if (performance.now() - sent > 5000) throw new Error(`delta ${i} did not cross in 5 s`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (i >= warmup) crossings.push(arrivals.get(i)! - sent);
      await sleep(10);
    }
    return summary(crossings);
  } finally {
    await Promise.all([a.close(), b.close()]);
    await database.drop();
  }
}

async function approvalInbox() {
  process.env.KINDGI_TEST_DATABASE_URL = baseUrl;
  const [replicas, receiver] = await Promise.all([startReplicas(), startRecordingServer((_request, response) => sendJson(response, 200, { ok: true }))]);
  const closers: (() => Promise<void>)[] = [];
  try {
    const json = async (server: string, method: string, path: string, key: string, body?: unknown) => {
      const response = await fetch(`${server}${path}`, { method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return JSON.parse(text);
    };
    const created = await json(replicas.a.baseUrl, "POST", "/v1/tenants", replicas.operatorToken, { name: "bench" });
    const key: string = created.apiKey.key;
    const projectId: string = created.project.id;
    const toolId = "bench.pay";
    await json(replicas.a.baseUrl, "POST", "/v1/tools", key, {
      id: toolId, description: "Pays.", version: "1.0.0", projectId, mutating: true,
      input: { type: "object", properties: { n: { type: "number" } } }, output: { type: "object" },
      network: { kind: "allowlist", hosts: [receiver.hostPort] },
      spec: { kind: "http", method: "POST", urlTemplate: `${receiver.origin}/pay`, requestBody: { kind: "json-input" } },
    });
    await json(replicas.a.baseUrl, "POST", "/v1/agents", key, { id: "bench.payer", version: "1.0.0", name: "Payer", instructions: "Pay.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: toolId, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId });
    const inbox = (server: RunningServer) => fetch(`${server.baseUrl}/v1/approvals/stream`, { headers: { Authorization: `Bearer ${key}` } }).then(readSse);
    const [streamA, streamB] = await Promise.all([inbox(replicas.a), inbox(replicas.b)]);
    closers.push(async () => (streamA.close(), streamB.close()));
    const onA = streamA.frames;
    const onB = streamB.frames;
    const afterA: number[] = [];
    const afterAnswer: number[] = [];
    for (let i = 0; i < warmup + approvals; i++) {
      const started = await json(replicas.a.baseUrl, "POST", "/v1/runs", key, { agent: { id: "bench.payer" }, input: { userMessage: JSON.stringify({ script: [{ toolCalls: [{ name: toolId, arguments: { n: i } }] }, { text: "paid" }] }) } });
      const answered = performance.now();
      if (started.status !== "suspended") throw new Error(`run ${started.id} is ${started.status}, not suspended`);
      const mine = (event: SseFrame) => event.event === "approval.requested" && event.data.approval.runId === started.id;
      const deadline = performance.now() + 10_000;
      while (!onA.some(mine) || !onB.some(mine)) {
        if (performance.now() > deadline) throw new Error(`approval of run ${started.id} did not reach both streams in 10 s`);
        await sleep(1);
      }
      if (i >= warmup) {
        const b = onB.find(mine)!.at;
        afterA.push(b - onA.find(mine)!.at);
        afterAnswer.push(b - answered);
      }
      await json(replicas.b.baseUrl, "POST", `/v1/runs/${started.id}/cancel`, key);
    }
    return { afterA: summary(afterA), afterAnswer: summary(afterAnswer) };
  } finally {
    for (const close of closers) await close();
    await replicas.stop();
    await receiver.close();
  }
}

async function main() {
  const bus = await busCrossing();
  console.log(`(1) a model delta from one bus to another (${bus.n}, one at a time): p50 ${bus.p50} ms, p90 ${bus.p90} ms, p99 ${bus.p99} ms, max ${bus.max} ms`);
  const inbox = await approvalInbox();
  console.log(`(2) an approval asked on A, on B's inbox stream (${inbox.afterA.n}, one at a time):`);
  console.log(`    after A's own stream:        p50 ${inbox.afterA.p50} ms, p90 ${inbox.afterA.p90} ms, p99 ${inbox.afterA.p99} ms, max ${inbox.afterA.max} ms`);
  console.log(`    after A answered the POST:   p50 ${inbox.afterAnswer.p50} ms, p90 ${inbox.afterAnswer.p90} ms, p99 ${inbox.afterAnswer.p99} ms, max ${inbox.afterAnswer.max} ms`);
  console.log(JSON.stringify({ bench: "replica-events", busCrossingMs: bus, approvalOnBAfterAMs: inbox.afterA, approvalOnBAfterAnswerMs: inbox.afterAnswer }));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  },
);
