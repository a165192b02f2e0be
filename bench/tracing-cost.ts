/**
 * Tracing benchmark: what exporting OpenTelemetry traces costs a turn, in one run.
 *
 * Three `next start` servers (scripts/start.mjs) on 127.0.0.1, each on its own fresh database (PGlite folders, or new
 * databases on the PostgreSQL server with `--backend pg`):
 *   off       – no OTEL variables: no provider, no exporter (the default);
 *   off again – the same, a second server: the control row (how much two identical servers differ here);
 *   on        – OTEL_EXPORTER_OTLP_ENDPOINT set to a receiver in this process (the default protocol, http/protobuf,
 *               and the default batch processor), which answers 200 to every export and counts the bytes.
 * The turn is the kernel bench's (bench/kernel-turns.ts row (a)): the dev-echo agent `bench.clock` with the built-in
 * `current-time` tool, `POST /v1/runs {agent, input: {userMessage: "UTC"}}` waiting for the end — two model calls and
 * one tool call, so a traced turn makes a run span, a turn span, two chat spans and an execute_tool span, beside
 * Next.js's request spans. Every answer must be 201 `completed`.
 *
 * The rows run in alternating blocks (off, off again, on; `--block` turns each, `--rounds` rounds, after a warm-up),
 * one turn at a time, so all three see the same machine. Printed: each row's median and p90 of the block means (ms
 * per turn), the ratio to `off`, and what the receiver got (export requests, bytes) — then one JSON line.
 *
 * Run:
 *   npm run bench:tracing                       # PGlite, 20 rounds of 20 turns
 *   npm run bench:tracing -- --backend pg --rounds 10 --block 20
 * Flags: --backend pglite|pg, --rounds N, --block N, --warmup N, --skip-build.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { BENCH_AGENT } from "../lib/services/kernel-bench-harness";
import { freshPostgresDatabase, newOperatorToken, root, startServer } from "../tests/helpers/server";
import { backendFlag, benchPgUrl, callApi, cleanupOnExit, defaultBackend, ensureFreshBuild, integerFlag, percentile, runAlternatingBlocks, textTable, type Backend, type BlockRow } from "./common";

type Options = { backend: Backend; rounds: number; block: number; warmup: number; skipBuild: boolean };
const USAGE = "usage: npm run bench:tracing -- [--backend pglite|pg] [--rounds N] [--block N] [--warmup N] [--skip-build]";

function parseArgs(argv: string[]): Options {
  const options: Options = { backend: defaultBackend(), rounds: 20, block: 20, warmup: 20, skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--backend") options.backend = backendFlag(argv[++i], USAGE);
    else if (flag === "--rounds") options.rounds = integerFlag(flag, argv[++i], 1);
    else if (flag === "--block") options.block = integerFlag(flag, argv[++i], 1);
    else if (flag === "--warmup") options.warmup = integerFlag(flag, argv[++i], 0);
    else throw new Error(`unknown flag ${flag}\n${USAGE}`);
  }
  return options;
}

/** An OTLP/HTTP receiver: 200 to every export, counting requests and bytes. */
async function startReceiver() {
  const counts = { requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => (counts.bytes += chunk.length));
    request.on("end", () => {
      counts.requests += 1;
      response.writeHead(200, { "Content-Type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { cleanups, release } = cleanupOnExit("stopping the bench servers", () => undefined);
  try {
    ensureFreshBuild(root, options.skipBuild);
    const receiver = await startReceiver();
    cleanups.push({ label: "receiver", fn: receiver.close });
    const variants: { label: string; env: Record<string, string> }[] = [
      { label: "off", env: {} },
      { label: "off again (control)", env: {} },
      { label: "on (OTLP http/protobuf to a local receiver)", env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin } },
    ];
    const rows: BlockRow[] = [];
    for (const variant of variants) {
      const database = options.backend === "postgresql" ? await freshPostgresDatabase(benchPgUrl()) : null;
      if (database) cleanups.push({ label: "database", fn: database.drop });
      const operatorToken = newOperatorToken();
      console.log(`starting "${variant.label}" on ${options.backend === "postgresql" ? "PostgreSQL (fresh database)" : "PGlite (fresh data folder)"}…`);
      const server = await startServer({ env: { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), KINDGI_ADMIN_EMAIL: undefined, KINDGI_ADMIN_PASSWORD: undefined, OTEL_EXPORTER_OTLP_ENDPOINT: undefined, ...variant.env } });
      cleanups.push({ label: "server", fn: server.stop });
      if (server.dataDir) cleanups.push({ label: "data folder", fn: () => fs.rmSync(server.dataDir!, { recursive: true, force: true }) });
      const tenant = await callApi(server.baseUrl, operatorToken, "POST", "/v1/tenants", { name: "tracing bench" });
      const key: string = tenant.apiKey.key;
      await callApi(server.baseUrl, key, "POST", "/v1/agents", { ...BENCH_AGENT, projectId: tenant.project.id });
      const body = JSON.stringify({ agent: { id: BENCH_AGENT.id }, input: { userMessage: "UTC" } });
      rows.push({
        label: variant.label,
        micros: [],
        call: async () => {
          const response = await fetch(`${server.baseUrl}/v1/runs`, { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body, signal: AbortSignal.timeout(30_000) });
          const run = (await response.json()) as { status?: string };
          if (response.status !== 201 || run.status !== "completed") throw new Error(`${variant.label}: ${response.status} ${JSON.stringify(run)}`);
        },
      });
    }
    await runAlternatingBlocks(rows, { rounds: options.rounds, block: options.block, warmup: options.warmup });
    // The batch processor exports every 5 s: what the last turns made arrives after.
    await new Promise((resolve) => setTimeout(resolve, 6000));

    const summary = rows.map((row) => {
      const sorted = [...row.micros].sort((a, b) => a - b);
      return { label: row.label, blocks: sorted.length, p50: percentile(sorted, 50) / 1000, p90: percentile(sorted, 90) / 1000 };
    });
    const [off] = summary;
    console.log(`\nOne turn (2 model calls + 1 tool call, dev-echo), POST /v1/runs waiting for the end, one at a time; ${options.rounds} rounds of ${options.block} turns per row in turn after ${options.warmup} warm-up turns each (${options.backend}, ${os.cpus().length} CPUs, Node ${process.version}, load average at the end ${os.loadavg().map((load) => load.toFixed(2)).join("/")})\n`);
    for (const line of textTable(
      ["row", "blocks", "ms/turn p50", "ms/turn p90", "p50 / off"],
      summary.map((row) => [row.label, String(row.blocks), row.p50.toFixed(2), row.p90.toFixed(2), `${(row.p50 / off.p50).toFixed(3)}×`]),
      (column) => column > 0,
    ))
      console.log(line);
    const turns = (options.rounds * options.block + options.warmup);
    console.log(`\nThe receiver got ${receiver.counts.requests} exports, ${(receiver.counts.bytes / 1024).toFixed(0)} KiB (${(receiver.counts.bytes / turns).toFixed(0)} bytes per traced turn, Next.js's request spans included).`);
    console.log(JSON.stringify({ bench: "tracing-cost", backend: options.backend, node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg(), rounds: options.rounds, block: options.block, warmup: options.warmup, rows: summary, receiver: receiver.counts }));
  } finally {
    await release();
  }
}

main().catch((error) => {
  console.error(`bench:tracing failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
