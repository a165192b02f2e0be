/**
 * Live paths, end to end, on two replicas of the product on one PostgreSQL database (A and B, `npm start` each):
 * - time to first token: a streaming wire server (OpenAI Chat Completions format) writes its first delta, and the
 *   same delta reaches a client of the run's stream — on A, where the run executes (`POST /v1/runs` with
 *   `Accept: text/event-stream`), and on B (`GET /v1/runs/{id}/stream`). Beside them, a client reading the wire
 *   server directly: the overhead of each row is its latency less the direct one's, at the same percentile. The wire
 *   server holds each answer until the client is connected (it has the run's first events), then writes its first
 *   delta: the clock starts right before that write.
 * - an approval's arrival: a run on A asks for an approval; when it reaches the inbox stream (`/v1/approvals/stream`)
 *   on A and on B, measured from the approval's `requestedAt` (A's clock; the same machine).
 * - a decision → the tool's first byte: the approval decided on A (where the run started) or on B; the clock starts
 *   before the decision is sent and stops when the tool's server sees the request arrive.
 * Every row of a kind is measured in the same rounds, in turn.
 *
 * Run:
 *   npm run bench:live                      # PostgreSQL at $KINDGI_BENCH_DATABASE_URL, $DATABASE_URL or the local default
 * Flags: --samples N (per row, 40), --warmup N (uncounted, 5), --skip-build (reuse .next as it is).
 * A fresh database is made and dropped at the end. Output: a table (ms), the targets, then one JSON line. Exits 1 with
 * a message on failure.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { root } from "../tests/helpers/server";
import { startReplicas, type Replicas } from "../tests/helpers/replicas";
import { readSse, type SseFrame, type SseReader } from "../tests/helpers/sse";
import { callApi, cleanupOnExit, DEFAULT_PG_URL, ensureFreshBuild, figureBesideVerdict, integerFlag, percentile, registerWireTalker, textTable } from "./common";

type Options = { samples: number; warmup: number; skipBuild: boolean };
const USAGE = "usage: npm run bench:live -- [--samples N] [--warmup N] [--skip-build]";
const pgUrl = () => process.env.KINDGI_BENCH_DATABASE_URL || process.env.DATABASE_URL || DEFAULT_PG_URL;

function parseArgs(argv: string[]): Options {
  const options: Options = { samples: 40, warmup: 5, skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--samples") options.samples = integerFlag(flag, argv[++i], 1);
    else if (flag === "--warmup") options.warmup = integerFlag(flag, argv[++i], 0);
    else throw new Error(`unknown flag ${flag}\n${USAGE}`);
  }
  return options;
}

// ---- the wire server ----

/**
 * A Chat Completions streaming server that holds each answer until `release()`: it answers the headers at once, then
 * waits, then writes the first delta (the time of that write is kept), the rest, and `[DONE]`.
 */
async function startHeldWireServer() {
  const held: { release: () => void; firstWriteAt: Promise<number> }[] = [];
  const arrivals: (() => void)[] = [];
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000, model: "wire-model", choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.flushHeaders();
      let release!: () => void;
      const go = new Promise<void>((resolve) => (release = resolve));
      const firstWriteAt = go.then(() => {
        const at = performance.now();
        response.write(chunk({ role: "assistant", content: "Hello" }));
        response.write(chunk({ content: ", world." }));
        response.write(`data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000, model: "wire-model", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
        response.write(`data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000, model: "wire-model", choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } })}\n\n`);
        response.end("data: [DONE]\n\n");
        return at;
      });
      held.push({ release, firstWriteAt });
      arrivals.shift()?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    /** The next answer the server holds (waiting for its request if it has not come yet). */
    async next(): Promise<{ release: () => void; firstWriteAt: Promise<number> }> {
      if (!held.length) await new Promise<void>((resolve) => arrivals.push(resolve));
      return held.shift()!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A server that records when each request arrives (its headers), by path, and answers 200 at once. */
async function startToolServer() {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server = http.createServer((request, response) => {
    const at = performance.now();
    const url = request.url ?? "";
    arrived.set(url, at);
    waiting.get(url)?.(at);
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    arrival(url: string): Promise<number> {
      const known = arrived.get(url);
      return known !== undefined ? Promise.resolve(known) : new Promise((resolve) => waiting.set(url, resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- measuring ----

type Row = { label: string; kind: "ttft" | "approval" | "decision"; samples: number[] };

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN, mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length };
};

const firstDelta = (reader: SseReader) => reader.waitFor((frames) => frames.some((frame) => frame.event === "model-delta"), 20_000).then((frames) => frames.find((frame) => frame.event === "model-delta")!.at);
const hasRunCreated = (reader: SseReader) => reader.waitFor((frames) => frames.some((frame) => frame.event === "turn-started"), 20_000);

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { cleanups, release } = cleanupOnExit("stopping the bench servers", () => undefined);
  try {
    ensureFreshBuild(root, options.skipBuild);
    process.env.KINDGI_TEST_DATABASE_URL = pgUrl();
    console.log(`two replicas on PostgreSQL (${new URL(pgUrl()).host}, fresh database)…`);
    const replicas: Replicas = await startReplicas();
    cleanups.push({ label: "replicas", fn: () => replicas.stop() });
    const wire = await startHeldWireServer();
    cleanups.push({ label: "wire server", fn: () => wire.close() });
    const tools = await startToolServer();
    cleanups.push({ label: "tool server", fn: () => tools.close() });
    const A = replicas.a.baseUrl;
    const B = replicas.b.baseUrl;

    const tenant = await callApi(A, replicas.operatorToken, "POST", "/v1/tenants", { name: "live bench" });
    const key: string = tenant.apiKey.key;
    const projectId: string = tenant.project.id;
    const talker = { id: await registerWireTalker(A, key, projectId, wire.baseUrl) };
    const tool = {
      id: "bench.pay",
      description: "Pays (a mutating call that asks for approval).",
      version: "1.0.0",
      input: { type: "object", properties: { ref: { type: "string" } }, required: ["ref"], additionalProperties: false },
      output: { type: "object" },
      mutating: true,
      network: { kind: "allowlist", hosts: [tools.hostPort] },
      spec: { kind: "http", method: "POST", urlTemplate: `${tools.origin}/pay/{ref}`, requestBody: { kind: "json-input" } },
      projectId,
    };
    await callApi(A, key, "POST", "/v1/tools", tool);
    const payer = { id: "bench.payer", version: "1.0.0", name: "Payer", instructions: "Pay.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: tool.id, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId };
    await callApi(A, key, "POST", "/v1/agents", payer);

    const direct: Row = { label: "wire server → a client reading it directly", kind: "ttft", samples: [] };
    const oneServer: Row = { label: "wire server → run stream on A (the run's replica)", kind: "ttft", samples: [] };
    const acrossReplicas: Row = { label: "wire server → run stream on B (the other replica)", kind: "ttft", samples: [] };
    const approvalOnA: Row = { label: "approval requested on A → A's inbox stream", kind: "approval", samples: [] };
    const approvalOnB: Row = { label: "approval requested on A → B's inbox stream", kind: "approval", samples: [] };
    const decidedOnA: Row = { label: "decided on A (where the run started) → tool's first byte", kind: "decision", samples: [] };
    const decidedOnB: Row = { label: "decided on B (the other replica) → tool's first byte", kind: "decision", samples: [] };

    const measureDirect = async () => {
      const responded = fetch(`${wire.baseUrl}/chat/completions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ model: "wire-model", stream: true, messages: [] }) });
      const held = await wire.next();
      const reader = readSse(await responded);
      held.release();
      const text = (frame: SseFrame) => Boolean(frame.data?.choices?.[0]?.delta?.content);
      const received = (await reader.waitFor((frames) => frames.some(text), 20_000)).find(text)!.at;
      const latency = received - (await held.firstWriteAt);
      await reader.ended;
      return latency;
    };
    /** Opens a run-stream client (the run starting meanwhile), then lets the wire server answer once it is connected. */
    const measureRunStream = async (open: () => Promise<SseReader>) => {
      const reader = await open();
      const held = await wire.next();
      await hasRunCreated(reader);
      held.release();
      const latency = (await firstDelta(reader)) - (await held.firstWriteAt);
      await reader.ended;
      return latency;
    };
    const measureOnA = () =>
      measureRunStream(async () => readSse(await fetch(`${A}/v1/runs`, { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Accept: "text/event-stream" }, body: JSON.stringify({ agent: { id: talker.id }, input: { userMessage: "Hello?" } }) })));
    const measureOnB = () =>
      measureRunStream(async () => {
        const started = await callApi(A, key, "POST", "/v1/runs", { agent: { id: talker.id }, input: { userMessage: "Hello?" }, options: { wait: false } });
        return readSse(await fetch(`${B}/v1/runs/${started.id}/stream`, { headers: { Authorization: `Bearer ${key}` } }));
      });

    const inboxA = readSse(await fetch(`${A}/v1/approvals/stream`, { headers: { Authorization: `Bearer ${key}` } }));
    const inboxB = readSse(await fetch(`${B}/v1/approvals/stream`, { headers: { Authorization: `Bearer ${key}` } }));
    cleanups.push({ label: "inbox streams", fn: () => (inboxA.close(), inboxB.close()) });
    let round = 0;
    /** A run on A that asks for an approval: when each inbox stream had it; then decided on `where`, until the tool's first byte. */
    const measureApproval = async (where: "A" | "B") => {
      const ref = `r${++round}`;
      const started = await callApi(A, key, "POST", "/v1/runs", { agent: { id: payer.id }, input: { userMessage: JSON.stringify({ script: [{ toolCalls: [{ name: tool.id, arguments: { ref } }] }, { text: "paid" }] }) }, options: { wait: false } });
      const mine = (frames: SseFrame[]) => frames.find((frame) => frame.event === "approval.requested" && frame.data.approval.runId === started.id);
      const [onA, onB] = await Promise.all([inboxA.waitFor((frames) => Boolean(mine(frames))), inboxB.waitFor((frames) => Boolean(mine(frames)))]).then(([a, b]) => [mine(a)!, mine(b)!]);
      const requestedAt = Date.parse(onA.data.approval.requestedAt);
      // Frame times are performance.now(); the approval's time is the wall clock: both taken as offsets from now.
      const wallOf = (at: number) => Date.now() - (performance.now() - at);
      const approval = { a: wallOf(onA.at) - requestedAt, b: wallOf(onB.at) - requestedAt };
      const arrival = tools.arrival(`/pay/${ref}`);
      const before = performance.now();
      await callApi(where === "A" ? A : B, key, "POST", `/v1/approvals/${onA.data.approval.id}/complete`, { decision: "approve" });
      const decision = (await arrival) - before;
      return { approval, decision };
    };

    const labelled = async <T>(label: string, measure: () => Promise<T>): Promise<T> => {
      try {
        return await measure();
      } catch (error) {
        throw new Error(`${label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    const rounds = options.warmup + options.samples;
    for (let i = 0; i < rounds; i++) {
      const counted = i >= options.warmup;
      const measured = [await labelled("direct", measureDirect), await labelled("run stream on A", measureOnA), await labelled("run stream on B", measureOnB)];
      const approvals = [await measureApproval(i % 2 === 0 ? "A" : "B"), await measureApproval(i % 2 === 0 ? "B" : "A")];
      if (!counted) continue;
      direct.samples.push(measured[0]);
      oneServer.samples.push(measured[1]);
      acrossReplicas.samples.push(measured[2]);
      for (const [index, result] of approvals.entries()) {
        approvalOnA.samples.push(result.approval.a);
        approvalOnB.samples.push(result.approval.b);
        ((i % 2 === 0) === (index === 0) ? decidedOnA : decidedOnB).samples.push(result.decision);
      }
    }

    const rows = [direct, oneServer, acrossReplicas, approvalOnA, approvalOnB, decidedOnA, decidedOnB];
    const base = stats(direct.samples);
    const fmt = (value: number) => value.toFixed(2);
    const table = textTable(
      ["row", "n", "p50", "p99", "max", "mean", "overhead p50", "overhead p99"],
      rows.map((row) => {
        const s = stats(row.samples);
        const overhead = row.kind === "ttft" && row !== direct ? [fmt(s.p50 - base.p50), fmt(s.p99 - base.p99)] : ["", ""];
        return [row.label, String(s.n), fmt(s.p50), fmt(s.p99), fmt(s.max), fmt(s.mean), ...overhead];
      }),
      (column) => column > 0,
    );
    const one = stats(oneServer.samples);
    const across = stats(acrossReplicas.samples);
    const inbox = stats(approvalOnB.samples);
    const verdict = (value: number, limit: number) => `${figureBesideVerdict(value, 2, (figure) => figure <= limit)} ms (${value <= limit ? "met" : "NOT met"})`;
    console.log("");
    console.log(`live paths (ms), two replicas on PostgreSQL, ${options.samples} samples a row (${options.warmup} uncounted rounds first), every row measured in the same rounds in turn; load average at the end ${os.loadavg().map((load) => load.toFixed(2)).join("/")}`);
    for (const line of table) console.log(line);
    console.log("");
    console.log(`time-to-first-token overhead p50 on one server ≤ 5 ms: ${verdict(one.p50 - base.p50, 5)}`);
    console.log(`time-to-first-token overhead p50 across replicas ≤ 20 ms: ${verdict(across.p50 - base.p50, 20)}`);
    console.log(`approval on the other replica's inbox stream p99 ≤ 100 ms: ${verdict(inbox.p99, 100)}`);
    console.log(JSON.stringify({ options, rows: rows.map((row) => ({ label: row.label, ...stats(row.samples) })) }));
  } finally {
    await release();
  }
}

main().catch((error) => {
  console.error(`bench:live failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exit(1);
});
