/**
 * Tool-call latency at the invoker: a native tool (`current-time`) beside a pack handler at each sandbox level
 * (`none` in process; `context-isolated` in a child process under bubblewrap with its egress proxy; `strict` the same
 * under Node's permission model), warm, one call at a time; then the same handler shipped as an OCI artifact, pushed
 * to Debian's docker-registry on 127.0.0.1 (bearer-token auth) by umoci + skopeo as the tests do: a warm call (the
 * bundle found in the cache, the sandbox warm: what every call after the first costs) and a cold first call (an empty
 * cache: the tag's digest pulled, verified and unpacked, and a new sandbox started) at each level. No HTTP, no
 * database, no journal: the figures are what the transport adds to a tool call, not a turn. The handler is
 * tests/fixtures/handlers/echo.mjs (resolves a secret, logs two lines, answers an object).
 *
 * Run: `npx tsx bench/handler-latency.ts`. Environment: BENCH_HANDLER_CALLS (300), BENCH_HANDLER_WARMUP (20),
 * BENCH_HANDLER_COLD (10 cold first calls per level). Output: an aligned table (p50, p99, mean in ms, calls/s), then
 * one JSON line with every figure. Exit code 1 when a measured call failed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { mean, percentile } from "./common";
import { root } from "../tests/helpers/server";
import { getBuiltinTool, invokeNativeTool } from "../lib/tools/native";
import { disposeSandboxes, invokeHandlerTool } from "../lib/tools/handler/invoke";
import { prepareModule } from "../lib/tools/oci";
import { pushBundle, startRegistry } from "../tests/helpers/registry";
import type { ToolManifest } from "../lib/tools/manifest-schema";

const calls = Number(process.env.BENCH_HANDLER_CALLS ?? 300);
const warmup = Number(process.env.BENCH_HANDLER_WARMUP ?? 20);
const coldCalls = Number(process.env.BENCH_HANDLER_COLD ?? 10);

type Row = { row: string; calls: number; failures: number; p50Ms: number; p99Ms: number; meanMs: number; callsPerSecond: number };

async function measure(row: string, once: () => Promise<boolean>, times = { warmup, calls }): Promise<Row> {
  for (let index = 0; index < times.warmup; index += 1) await once();
  const latencies: number[] = [];
  let failures = 0;
  const begin = performance.now();
  const calls = times.calls;
  for (let index = 0; index < calls; index += 1) {
    const start = performance.now();
    if (!(await once())) failures += 1;
    latencies.push(performance.now() - start);
  }
  const wall = performance.now() - begin;
  latencies.sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return { row, calls, failures, p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)), meanMs: round(mean(latencies)), callsPerSecond: Math.round((calls / wall) * 1000) };
}

/** The echo handler's manifest (a secret and an env value, as the tests give it) at a sandbox level. */
function echoManifest(id: string, sandbox: "none" | "context-isolated" | "strict", codeArtifactRef: NonNullable<ToolManifest["codeArtifactRef"]>): ToolManifest {
  return {
    id,
    version: "1.0.0",
    description: "echo",
    input: { type: "object" },
    output: { type: "object" },
    sandbox,
    limits: { memMB: 64, cpuMs: 5000 },
    codeArtifactRef,
    needsSpec: { secrets: { API_TOKEN: { name: "bench-token" } }, env: { REGION: { value: "eu-west" } } },
  };
}

async function main() {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-handlers-"));
  fs.cpSync(path.join(root, "tests/fixtures/handlers"), folder, { recursive: true });
  try {
    const native = getBuiltinTool("current-time") as ToolManifest;
    const context = { tenantId: "bench", projectId: "bench", conversationId: null, runId: "run_bench", userId: "bench", now: () => new Date() };
    const rows: Row[] = [await measure("native current-time", async () => (await invokeNativeTool(native, { timezone: "UTC" }, context)).ok)];
    for (const sandbox of ["none", "context-isolated", "strict"] as const) {
      const manifest = echoManifest("bench.echo", sandbox, { kind: "filesystem", modulePath: path.join(folder, "echo.mjs") });
      let sequence = 0;
      rows.push(
        await measure(`handler ${sandbox}`, async () => {
          const result = await invokeHandlerTool(manifest, { text: "bench" }, { idempotencyKey: `run_bench:${++sequence}`, signal: new AbortController().signal, resolveSecret: async () => "bench-secret-value", log: () => {} });
          return result.ok;
        }),
      );
    }
    rows.push(...(await ociRows(folder)));
    const pad = (text: string, width: number) => text.padEnd(width);
    console.log(`${pad("row", 40)}${pad("calls", 8)}${pad("fail", 6)}${pad("p50 ms", 10)}${pad("p99 ms", 10)}${pad("mean ms", 10)}calls/s`);
    for (const row of rows) console.log(`${pad(row.row, 40)}${pad(String(row.calls), 8)}${pad(String(row.failures), 6)}${pad(row.p50Ms.toFixed(3), 10)}${pad(row.p99Ms.toFixed(3), 10)}${pad(row.meanMs.toFixed(3), 10)}${row.callsPerSecond}`);
    console.log(JSON.stringify({ bench: "handler-latency", node: process.version, cpus: os.cpus().length, warmup, rows }));
    process.exitCode = rows.some((row) => row.failures > 0) ? 1 : 0;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
  // Warm sandboxes (child processes and their egress proxies) would keep the process alive.
  process.exit(process.exitCode ?? 0);
}

/** The echo handler as an OCI bundle: warm cached calls and cold first calls at each sandbox level. */
async function ociRows(folder: string): Promise<Row[]> {
  const registry = await startRegistry({ auth: "token" });
  const caches: string[] = [];
  try {
    const pushed = await pushBundle(registry, "bench/echo", "1.0.0", { "pack/echo.mjs": fs.readFileSync(path.join(folder, "echo.mjs")) });
    const imageRef = `${registry.host}/bench/echo:1.0.0`;
    const options = (cacheDir: string) => ({ cacheDir, allowPrivate: true, credentials: async () => ({ username: registry.username, password: registry.password }) });
    let sequence = 0;
    // What the kernel does at each call of an oci handler (lib/services/artifacts.ts): the module in its bundle, then the call.
    const callOnce = async (sandbox: "none" | "context-isolated" | "strict", cacheDir: string) => {
      const { root, modulePath } = await prepareModule("bench", { imageRef, digest: pushed.digest, modulePath: "/pack/echo.mjs" }, options(cacheDir));
      const manifest = echoManifest("bench.echo-oci", sandbox, { kind: "oci", imageRef, modulePath: "/pack/echo.mjs", artifactVersion: "1.0.0", digest: pushed.digest });
      const result = await invokeHandlerTool(manifest, { text: "bench" }, { idempotencyKey: `run_bench:${++sequence}`, signal: new AbortController().signal, resolveSecret: async () => "bench-secret-value", log: () => {}, artifact: { root, modulePath } });
      return result.ok;
    };
    const warmCache = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-artifacts-"));
    caches.push(warmCache);
    const rows: Row[] = [];
    for (const sandbox of ["none", "context-isolated", "strict"] as const) rows.push(await measure(`oci ${sandbox} warm`, () => callOnce(sandbox, warmCache)));
    for (const sandbox of ["none", "context-isolated", "strict"] as const) {
      rows.push(
        await measure(
          `oci ${sandbox} cold (first call)`,
          async () => {
            // An empty cache (so a pull) and a module path never seen (so a new sandbox, or a fresh import in process).
            const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-bench-artifacts-"));
            caches.push(cacheDir);
            const ok = await callOnce(sandbox, cacheDir);
            disposeSandboxes();
            return ok;
          },
          { warmup: 1, calls: coldCalls },
        ),
      );
    }
    return rows;
  } finally {
    disposeSandboxes();
    await registry.close();
    for (const cacheDir of caches) fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}

void main();
