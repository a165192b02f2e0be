/**
 * `tools/call` latency through the MCP door, beside the same call through the API and the upstream called directly.
 * One read-only HTTP tool (POST to a local upstream that answers a small JSON object at once) in a fresh tenant of the
 * product (`npm start`, its own server), called one at a time, in three rows:
 *   upstream direct                  – the upstream's POST /lookup, no product in between (the floor);
 *   POST /v1/tools/{id}/invoke       – the tool invocation run through the API (`wait` by default: 201 once settled);
 *   /v1/mcp tools/call               – a JSON-RPC `tools/call` POSTed to the MCP door (stateless, no session).
 * Every row goes through the same `node:http` keep-alive client (bench/common.ts `loadClient`) with the same body; the
 * MCP row is answered as JSON or as an SSE stream, and counts as ok only with a result that is no error. After a
 * warm-up of every row, the rows are measured in rounds of blocks taken in turn (direct, invoke, MCP, then again), so
 * they see the same machine; each call is timed on its own.
 *
 * Run:
 *   npm run bench:mcp-server                    # PGlite (embedded); builds first when the build is stale
 *   npm run bench:mcp-server -- --backend pg    # PostgreSQL at $KINDGI_BENCH_DATABASE_URL, $DATABASE_URL or the local default
 *   npm run bench:mcp-server -- --quick         # 100 calls per row, 20 warm-up: about half a minute after the start
 * Flags: --samples N (calls per row, 300), --rounds N (10), --warmup N (uncounted, per row, 50), --skip-build.
 * A PostgreSQL run uses a fresh database, dropped at the end; a PGlite run a fresh data folder, removed at the end.
 * Output: a table (ms; each row's p50 and p99 over the direct call's), then one JSON line. Exits 1 when a call failed.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { freshPostgresDatabase, newOperatorToken, root, startServer } from "../tests/helpers/server";
import { benchToolManifest, cleanupOnExit, ensureFreshBuild, integerFlag, jsonOrUndefined, loadClient, mean, percentile, textTable, type LoadResponse, backendFlag, benchPgUrl, defaultBackend, type Backend } from "./common";

type Options = { samples: number; rounds: number; warmup: number; backend: Backend; skipBuild: boolean };
const USAGE = "usage: npm run bench:mcp-server -- [--backend pglite|pg] [--quick] [--samples N] [--rounds N] [--warmup N] [--skip-build]";

function parseArgs(argv: string[]): Options {
  const options: Options = { samples: 300, rounds: 10, warmup: 50, backend: defaultBackend(), skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--quick") Object.assign(options, { samples: 100, warmup: 20 });
    else if (flag === "--samples") options.samples = integerFlag(flag, argv[++i], 1);
    else if (flag === "--rounds") options.rounds = integerFlag(flag, argv[++i], 1);
    else if (flag === "--warmup") options.warmup = integerFlag(flag, argv[++i], 0);
    else if (flag === "--backend") options.backend = backendFlag(argv[++i], USAGE);
    else throw new Error(`unknown flag ${flag}\n${USAGE}`);
  }
  return options;
}

/** The upstream: POST /lookup answers `{definition}` for the body's word at once. */
async function startUpstream() {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const word = jsonOrUndefined(Buffer.concat(chunks).toString("utf8"))?.word ?? "?";
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ definition: `a word: ${word}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The JSON-RPC answer to request `id` in a door's response: a JSON body, or the `data:` of an SSE event. */
function rpcAnswer(response: LoadResponse, id: number): any {
  const whole = jsonOrUndefined(response.text);
  if (whole) return whole;
  for (const line of response.text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const message = jsonOrUndefined(line.slice(5).trim());
    if (message?.id === id) return message;
  }
  return undefined;
}

type Row = { label: string; call: () => Promise<boolean>; samples: number[]; failures: number };

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { cleanups, release } = cleanupOnExit("stopping the bench server", () => undefined);
  const client = loadClient("http", 1);
  cleanups.push({ label: "client", fn: () => client.close() });
  try {
    ensureFreshBuild(root, options.skipBuild);
    const upstream = await startUpstream();
    cleanups.push({ label: "upstream", fn: upstream.close });
    const database = options.backend === "postgresql" ? await freshPostgresDatabase(benchPgUrl()) : null;
    if (database) cleanups.push({ label: "database", fn: database.drop });
    const operatorToken = newOperatorToken();
    console.log(`starting the product on ${options.backend === "postgresql" ? `PostgreSQL (${new URL(benchPgUrl()).host}, fresh database)` : "PGlite (fresh data folder)"}…`);
    const server = await startServer({ env: { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"), KINDGI_ADMIN_EMAIL: undefined, KINDGI_ADMIN_PASSWORD: undefined } });
    cleanups.push({ label: "server", fn: server.stop });
    if (server.dataDir) cleanups.push({ label: "data folder", fn: () => fs.rmSync(server.dataDir!, { recursive: true, force: true }) });
    const base = server.baseUrl;

    const json = (key: string) => ({ Authorization: `Bearer ${key}`, "Content-Type": "application/json" });
    const created = await client.request(`${base}/v1/tenants`, { method: "POST", headers: json(operatorToken), body: JSON.stringify({ name: "mcp server bench" }) });
    if (created.status !== 201) throw new Error(`tenant: ${created.status} ${created.text}`);
    const { apiKey, project } = JSON.parse(created.text);
    const key: string = apiKey.key;
    const toolId = "bench.lookup";
    const manifest = { ...benchToolManifest(toolId), output: { type: "object" }, network: { kind: "allowlist", hosts: [upstream.hostPort] }, spec: { kind: "http", method: "POST", urlTemplate: `${upstream.origin}/lookup`, requestBody: { kind: "json-input" } }, projectId: project.id };
    const registered = await client.request(`${base}/v1/tools`, { method: "POST", headers: json(key), body: JSON.stringify(manifest) });
    if (registered.status !== 201) throw new Error(`tool: ${registered.status} ${registered.text}`);

    const word = { word: "kindgi" };
    const mcpHeaders = { ...json(key), Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" };
    const initialized = await client.request(`${base}/v1/mcp`, { method: "POST", headers: mcpHeaders, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }) });
    if (initialized.status !== 200 || !rpcAnswer(initialized, 0)?.result) throw new Error(`initialize: ${initialized.status} ${initialized.text}`);

    let id = 0;
    const rows: Row[] = [
      {
        label: "upstream direct",
        call: async () => {
          const response = await client.request(`${upstream.origin}/lookup`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(word) });
          return response.status === 200 && jsonOrUndefined(response.text)?.definition === "a word: kindgi";
        },
      },
      {
        label: "POST /v1/tools/{id}/invoke",
        call: async () => {
          const response = await client.request(`${base}/v1/tools/${toolId}/invoke`, { method: "POST", headers: json(key), body: JSON.stringify({ arguments: word }) });
          const run = jsonOrUndefined(response.text);
          return response.status === 201 && run?.status === "completed" && run.output?.definition === "a word: kindgi";
        },
      },
      {
        label: "/v1/mcp tools/call",
        call: async () => {
          const callId = ++id;
          const response = await client.request(`${base}/v1/mcp`, { method: "POST", headers: mcpHeaders, body: JSON.stringify({ jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: toolId, arguments: word } }) });
          const result = rpcAnswer(response, callId)?.result;
          return response.status === 200 && result !== undefined && result.isError !== true && result.structuredContent?.definition === "a word: kindgi";
        },
      },
    ].map((row) => ({ ...row, samples: [], failures: 0 }));

    for (const row of rows) {
      if (!(await row.call())) throw new Error(`${row.label}: the first call failed`);
      for (let i = 1; i < options.warmup; i++) await row.call();
    }
    const perBlock = Math.ceil(options.samples / options.rounds);
    for (let round = 0; round < options.rounds; round++) {
      for (const row of rows) {
        for (let i = 0; i < perBlock && row.samples.length < options.samples; i++) {
          const started = performance.now();
          const ok = await row.call();
          row.samples.push(performance.now() - started);
          if (!ok) row.failures++;
        }
      }
    }

    const stats = rows.map((row) => {
      const sorted = [...row.samples].sort((a, b) => a - b);
      return { label: row.label, n: sorted.length, failures: row.failures, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: mean(sorted) };
    });
    const [direct, invoke, mcp] = stats;
    const ms = (value: number) => value.toFixed(2);
    const times = (value: number) => `${value.toFixed(1)}×`;
    console.log(`\ntools/call latency, one call at a time, ${options.samples} calls per row in ${options.rounds} rounds after ${options.warmup} warm-up calls each (${options.backend}, ${os.cpus().length} CPUs, Node ${process.version})\n`);
    for (const line of textTable(
      ["row", "calls", "fail", "p50 ms", "p99 ms", "mean ms", "p50 / direct", "p99 / direct"],
      stats.map((row) => [row.label, String(row.n), String(row.failures), ms(row.p50), ms(row.p99), ms(row.mean), times(row.p50 / direct.p50), times(row.p99 / direct.p99)]),
      (column) => column > 0,
    ))
      console.log(line);
    console.log(`\n/v1/mcp over /invoke: p50 ${times(mcp.p50 / invoke.p50)} (+${ms(mcp.p50 - invoke.p50)} ms), p99 ${times(mcp.p99 / invoke.p99)} (+${ms(mcp.p99 - invoke.p99)} ms)`);
    console.log(JSON.stringify({ bench: "mcp-server-latency", backend: options.backend, node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg(), samples: options.samples, rounds: options.rounds, warmup: options.warmup, rows: stats }));
    process.exitCode = stats.some((row) => row.failures > 0) ? 1 : 0;
  } finally {
    await release();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
