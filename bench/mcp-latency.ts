/**
 * Tool-call latency benchmark: one tool call through each invoker, in process, with a warm connection, side by side
 * in one table. It measures the transport (the invoker the kernel calls), not a run: no model, no journal, no HTTP API.
 *
 * Rows:
 *   native        – the built-in `current-time` (invokeNativeTool).
 *   mcp stdio     – `@modelcontextprotocol/server-everything`'s `echo` over stdio (the node_modules copy, started once).
 *   mcp http      – the same server and tool over Streamable HTTP on 127.0.0.1 (started by this script).
 *   handler <lvl> – a pack handler at each sandbox level (none, context-isolated, strict)
 *                   (its `invokeHandlerTool(manifest, input, context)`); otherwise listed as not available.
 *
 * Run: `npx tsx bench/mcp-latency.ts` (or `npm run bench:mcp`). Environment: BENCH_CALLS (1000), BENCH_WARMUP (50).
 * Output: an aligned table (calls, p50, p99, mean in ms), then one JSON line with every figure. Exit code 1 when a
 * measured call failed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { mean, percentile } from "./common";
import { getBuiltinTool, invokeNativeTool } from "../lib/tools/native";
import { invokeMcpTool } from "../lib/tools/mcp/invoke";
import { closeAllConnections } from "../lib/tools/mcp/connection";
import type { ToolManifest } from "../lib/tools/manifest-schema";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const root = path.resolve(import.meta.dirname, "..");
const EVERYTHING = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

type Row = { row: string; calls: number; failures: number; p50Ms: number; p99Ms: number; meanMs: number } | { row: string; note: string };

async function measure(row: string, once: () => Promise<boolean>): Promise<Row> {
  for (let index = 0; index < WARMUP; index++) await once();
  const times: number[] = [];
  let failures = 0;
  for (let index = 0; index < CALLS; index++) {
    const start = performance.now();
    const ok = await once();
    times.push(performance.now() - start);
    if (!ok) failures++;
  }
  times.sort((a, b) => a - b);
  return { row, calls: CALLS, failures, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), meanMs: mean(times) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function startHttpServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!/listening/i.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the Streamable HTTP server did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

const echoManifest = (endpoint: string): ToolManifest => ({
  id: "everything.echo", version: "2.0.0", description: "Echoes", transport: "mcp", mcpEndpoint: endpoint, mutating: false,
  metadata: { mcpToolName: "echo" }, input: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }, output: { type: "object" },
});

async function handlerRows(): Promise<Row[]> {
  const { invokeHandlerTool } = await import("@/lib/tools/handler/invoke");
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-handler-"));
  const file = path.join(folder, "echo.mjs");
  fs.writeFileSync(file, "export default async (input) => ({ echoed: input.message });\n");
  const rows: Row[] = [];
  for (const sandbox of ["none", "context-isolated", "strict"] as const) {
    const manifest: ToolManifest = {
      id: "bench.echo", version: "1.0.0", description: "Echoes", mutating: false, sandbox, limits: { memMB: 128, cpuMs: 1000 },
      codeArtifactRef: { kind: "filesystem", modulePath: file }, input: { type: "object", properties: { message: { type: "string" } } }, output: { type: "object" },
    } as ToolManifest;
    const context = { idempotencyKey: "bench", signal: new AbortController().signal, resolveSecret: async () => "", log: () => {} };
    try {
      rows.push(await measure(`handler ${sandbox}`, async () => (await invokeHandlerTool(manifest, { message: "hi" }, context)).ok));
    } catch (error) {
      rows.push({ row: `handler ${sandbox}`, note: `failed: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  fs.rmSync(folder, { recursive: true, force: true });
  return rows;
}

async function main(): Promise<number> {
  process.env.KINDGI_MCP_STDIO = "allow";
  process.env.KINDGI_MCP_ALLOW_PRIVATE_URLS = "1";
  const rows: Row[] = [];
  const native = getBuiltinTool("current-time");
  if (!native) throw new Error("current-time is not built in");
  const nativeContext = { tenantId: "bench", projectId: "bench", conversationId: null, runId: "bench", userId: "bench", now: () => new Date() };
  rows.push(await measure("native current-time", async () => (await invokeNativeTool(native, {}, nativeContext)).ok));

  const stdio = `mcp+stdio://${process.execPath} ${EVERYTHING} stdio`;
  rows.push(await measure("mcp stdio (server-everything echo)", async () => (await invokeMcpTool(echoManifest(stdio), { message: "hi" }, { tenantId: "bench", config: async () => ({ endpoint: stdio, headers: {} }) })).ok));

  const port = await freePort();
  const server = await startHttpServer(port);
  try {
    const http = `mcp+http://127.0.0.1:${port}/mcp`;
    rows.push(await measure("mcp streamable http (server-everything echo)", async () => (await invokeMcpTool(echoManifest(http), { message: "hi" }, { tenantId: "bench", config: async () => ({ endpoint: http, headers: {} }) })).ok));
  } finally {
    server.kill("SIGTERM");
  }
  rows.push(...(await handlerRows()));
  await closeAllConnections();

  console.log(`tool-call latency, warm connections, ${CALLS} calls per row after ${WARMUP} warm-up calls (${os.cpus().length} CPUs, Node ${process.version})`);
  console.log(`${"row".padEnd(48)}${"calls".padStart(7)}${"fail".padStart(6)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}${"mean ms".padStart(10)}`);
  for (const row of rows) {
    if ("note" in row) console.log(`${row.row.padEnd(48)}  ${row.note}`);
    else console.log(`${row.row.padEnd(48)}${String(row.calls).padStart(7)}${String(row.failures).padStart(6)}${row.p50Ms.toFixed(3).padStart(10)}${row.p99Ms.toFixed(3).padStart(10)}${row.meanMs.toFixed(3).padStart(10)}`);
  }
  console.log(JSON.stringify({ benchmark: "mcp-latency", calls: CALLS, warmup: WARMUP, rows }));
  return rows.some((row) => "failures" in row && row.failures > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
