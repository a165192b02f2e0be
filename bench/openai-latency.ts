/**
 * Time to first token and total time of one streamed answer through the OpenAI Responses door, beside the same
 * agent's answer through the run API and the streaming wire server read directly. The product (`npm start`, its own
 * server, on a fresh PGlite data folder or a fresh PostgreSQL database) has one agent whose model provider is a local
 * streaming wire server (OpenAI Chat Completions format): each streamed answer is a role chunk, 20 chunks of a few
 * words each written WIRE_GAP_MS apart, a finish chunk, a usage chunk (the provider sends
 * `stream_options.include_usage`), then `data: [DONE]`. Three rows, every one through Node's `fetch` and the same
 * SSE reader (tests/helpers/sse.ts), the clock started right before the request is sent:
 *   wire direct                                   – the wire server read directly (the floor): the first content
 *                                                   delta, and `[DONE]`;
 *   POST /v1/runs (Accept: text/event-stream)     – the first `model-delta` frame carrying text, and `run-completed`;
 *   POST /v1/responses (stream: true)             – the first `response.output_text.delta`, and `response.completed`.
 * Every answer's text is checked whole. After the warm-up rounds, every round measures each row once, in turn, so the
 * rows see the same machine.
 *
 * Run:
 *   npm run bench:openai                      # PGlite (embedded); builds first when the build is stale
 *   npm run bench:openai -- --backend pg      # PostgreSQL at $KINDGI_BENCH_DATABASE_URL, $DATABASE_URL or the local default
 *   npm run bench:openai -- --quick           # 40 rounds after 5 warm-up rounds
 * Flags: --samples N (rounds counted, one answer per row each, 200), --warmup N (uncounted rounds, 20), --skip-build.
 * A PostgreSQL run uses a fresh database, dropped at the end; a PGlite run a fresh data folder, removed at the end.
 * Output: a table (ms: p50, p90, p99 of time to first token and of total time per row, each row's p50 over the direct
 * row's), then one JSON line. Exits 1 with a message on any failure.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { encodeEvents, openAICompletion, openAIStreamEvents, type WireAnswer } from "../lib/models/providers/testing/wire-servers";
import { freshPostgresDatabase, newOperatorToken, root, startServer } from "../tests/helpers/server";
import { readSse, type SseFrame } from "../tests/helpers/sse";
import { callApi, cleanupOnExit, ensureFreshBuild, integerFlag, jsonOrUndefined, percentile, registerWireTalker, textTable, backendFlag, benchPgUrl, defaultBackend, type Backend } from "./common";

type Options = { samples: number; warmup: number; backend: Backend; skipBuild: boolean };
const USAGE = "usage: npm run bench:openai -- [--backend pglite|pg] [--quick] [--samples N] [--warmup N] [--skip-build]";

function parseArgs(argv: string[]): Options {
  const options: Options = { samples: 200, warmup: 20, backend: defaultBackend(), skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--quick") Object.assign(options, { samples: 40, warmup: 5 });
    else if (flag === "--samples") options.samples = integerFlag(flag, argv[++i], 1);
    else if (flag === "--warmup") options.warmup = integerFlag(flag, argv[++i], 0);
    else if (flag === "--backend") options.backend = backendFlag(argv[++i], USAGE);
    else throw new Error(`unknown flag ${flag}\n${USAGE}`);
  }
  return options;
}

// ---- the streaming wire server ----

/** The wire server's pieces of text: 20 of a few words each, every one as long as the others. */
const PIECES = Array.from({ length: 20 }, (_, i) => `piece ${String(i + 1).padStart(2, "0")} of words, `);
const TEXT = PIECES.join("");
const ANSWER: WireAnswer = { text: TEXT, usage: { inputTokens: 12, outputTokens: PIECES.length * 4 } };
/** The wait between two of the stream's writes. */
const WIRE_GAP_MS = 3;

/**
 * An OpenAI Chat Completions server on 127.0.0.1 answering every `POST /v1/chat/completions` with ANSWER: streamed
 * (`stream: true`, which must come with `stream_options.include_usage`, as the provider sends it) as one write per
 * event (lib/models/providers/testing/wire-servers.ts transcripts: a role chunk, the text in PIECES, a finish chunk,
 * a usage chunk, `[DONE]`) WIRE_GAP_MS apart; otherwise as one `chat.completion`.
 */
async function startStreamingWireServer() {
  const events = encodeEvents(openAIStreamEvents(ANSWER, { pieceLength: PIECES[0].length }));
  const completion = JSON.stringify(openAICompletion(ANSWER));
  const server = createServer({ noDelay: true }, async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = jsonOrUndefined(Buffer.concat(chunks).toString("utf8"));
    if (request.method !== "POST" || request.url !== "/v1/chat/completions" || typeof body?.model !== "string") {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route for ${request.method} ${request.url}`, type: "invalid_request_error" } }));
      return;
    }
    if (body.stream !== true) {
      response.writeHead(200, { "content-type": "application/json" }).end(completion);
      return;
    }
    if (body.stream_options?.include_usage !== true) {
      response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "'stream_options' must be {\"include_usage\": true}", type: "invalid_request_error" } }));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
    for (const [i, event] of events.entries()) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, WIRE_GAP_MS));
      if (response.destroyed) return;
      response.write(event);
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- measuring ----

/** One streamed answer: the request sent with the clock started, then the frame of the first text and the last one. */
type Measure = { ttft: number; total: number };
type Row = { label: string; measure: () => Promise<Measure>; ttft: number[]; total: number[] };

/**
 * Sends `request` and reads its event stream until `isLast`: the time to the first frame `textOf` finds text in, and
 * to the last frame; the text of every frame joined must be TEXT.
 */
async function timeStream(request: () => Promise<Response>, textOf: (frame: SseFrame) => string | undefined, isLast: (frame: SseFrame) => boolean): Promise<Measure> {
  const started = performance.now();
  const response = await request();
  if (!response.ok || !response.headers.get("content-type")?.startsWith("text/event-stream")) throw new Error(`${response.status} ${await response.text()}`);
  const reader = readSse(response);
  try {
    const frames = await reader.waitFor((all) => all.some(isLast), 20_000);
    const first = frames.find((frame) => Boolean(textOf(frame)));
    const last = frames.find(isLast)!;
    const text = frames.map((frame) => textOf(frame) ?? "").join("");
    if (!first || text !== TEXT) throw new Error(`the answer's text was ${JSON.stringify(text)}, not the wire server's ${JSON.stringify(TEXT)}`);
    await reader.ended;
    return { ttft: first.at - started, total: last.at - started };
  } finally {
    reader.close();
  }
}

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) };
};

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { cleanups, release } = cleanupOnExit("stopping the bench server", () => undefined);
  try {
    ensureFreshBuild(root, options.skipBuild);
    const wire = await startStreamingWireServer();
    cleanups.push({ label: "wire server", fn: wire.close });
    const database = options.backend === "postgresql" ? await freshPostgresDatabase(benchPgUrl()) : null;
    if (database) cleanups.push({ label: "database", fn: database.drop });
    const operatorToken = newOperatorToken();
    console.log(`starting the product on ${options.backend === "postgresql" ? `PostgreSQL (${new URL(benchPgUrl()).host}, fresh database)` : "PGlite (fresh data folder)"}…`);
    const server = await startServer({ env: { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), KINDGI_ALLOW_PRIVATE_PROVIDER_URLS: "1", KINDGI_ADMIN_EMAIL: undefined, KINDGI_ADMIN_PASSWORD: undefined } });
    cleanups.push({ label: "server", fn: server.stop });
    if (server.dataDir) cleanups.push({ label: "data folder", fn: () => fs.rmSync(server.dataDir!, { recursive: true, force: true }) });
    const base = server.baseUrl;

    const tenant = await callApi(base, operatorToken, "POST", "/v1/tenants", { name: "openai bench" });
    const key: string = tenant.apiKey.key;
    const agentId = await registerWireTalker(base, key, tenant.project.id, wire.baseUrl);

    const post = (url: string, body: unknown, headers: Record<string, string>) => () => fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    const auth = { Authorization: `Bearer ${key}` };
    const rows: Row[] = [
      {
        label: "wire direct",
        measure: () =>
          timeStream(
            post(`${wire.baseUrl}/chat/completions`, { model: "wire-model", messages: [{ role: "user", content: "Hello?" }], stream: true, stream_options: { include_usage: true } }, { Authorization: "Bearer sk-bench-wire" }),
            (frame) => frame.data?.choices?.[0]?.delta?.content || undefined,
            (frame) => frame.data === "[DONE]",
          ),
      },
      {
        label: "POST /v1/runs (Accept: text/event-stream)",
        measure: () =>
          timeStream(
            post(`${base}/v1/runs`, { agent: { id: agentId }, input: { userMessage: "Hello?" } }, { ...auth, Accept: "text/event-stream" }),
            (frame) => (frame.event === "model-delta" && frame.data?.text) || undefined,
            (frame) => frame.event === "run-completed",
          ),
      },
      {
        label: "POST /v1/responses (stream: true)",
        measure: () =>
          timeStream(
            post(`${base}/v1/responses`, { model: agentId, input: "Hello?", stream: true }, auth),
            (frame) => (frame.event === "response.output_text.delta" && frame.data?.delta) || undefined,
            (frame) => frame.event === "response.completed",
          ),
      },
    ].map((row) => ({ ...row, ttft: [], total: [] }));

    for (let round = 0; round < options.warmup + options.samples; round++) {
      for (const row of rows) {
        let measured: Measure;
        try {
          measured = await row.measure();
        } catch (error) {
          throw new Error(`${row.label}, round ${round + 1}: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (round < options.warmup) continue;
        row.ttft.push(measured.ttft);
        row.total.push(measured.total);
      }
    }

    const results = rows.map((row) => ({ label: row.label, n: row.ttft.length, ttft: stats(row.ttft), total: stats(row.total) }));
    const [direct] = results;
    const ms = (value: number) => value.toFixed(2);
    const times = (value: number) => `${value.toFixed(1)}×`;
    console.log(`\nOne streamed answer (${PIECES.length} text chunks ${WIRE_GAP_MS} ms apart at the wire server), ${options.samples} rounds after ${options.warmup} warm-up rounds, each row once a round in turn (${options.backend}, ${os.cpus().length} CPUs, Node ${process.version}, load average at the end ${os.loadavg().map((load) => load.toFixed(2)).join("/")})\n`);
    for (const line of textTable(
      ["row", "n", "TTFT p50", "TTFT p90", "TTFT p99", "total p50", "total p90", "total p99", "TTFT p50 / direct", "total p50 / direct"],
      results.map((row) => [row.label, String(row.n), ms(row.ttft.p50), ms(row.ttft.p90), ms(row.ttft.p99), ms(row.total.p50), ms(row.total.p90), ms(row.total.p99), times(row.ttft.p50 / direct.ttft.p50), times(row.total.p50 / direct.total.p50)]),
      (column) => column > 0,
    ))
      console.log(line);
    const [, runs, responses] = results;
    console.log(`\n/v1/responses over /v1/runs at p50: TTFT ${ms(responses.ttft.p50 - runs.ttft.p50)} ms, total ${ms(responses.total.p50 - runs.total.p50)} ms`);
    console.log(JSON.stringify({ bench: "openai-latency", backend: options.backend, node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg(), samples: options.samples, warmup: options.warmup, wire: { chunks: PIECES.length, gapMs: WIRE_GAP_MS }, rows: results }));
  } finally {
    await release();
  }
}

main().catch((error) => {
  console.error(`bench:openai failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
