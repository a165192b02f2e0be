/**
 * What the benchmark scripts share: the local PostgreSQL default, the tool manifest they register, HTTP helpers,
 * percentiles, plain-text tables, and cleanup on exit.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildIsStale } from "../scripts/build-state.mjs";

export const DEFAULT_PG_URL = "postgresql://kindgi:kindgi@127.0.0.1:5432/kindgi";

/** Where a bench keeps its data: PGlite (embedded) or a PostgreSQL server. */
export type Backend = "pglite" | "postgresql";
/** The PostgreSQL server a bench makes its fresh database on. */
export const benchPgUrl = () => process.env.KINDGI_BENCH_DATABASE_URL || process.env.DATABASE_URL || DEFAULT_PG_URL;
/** PostgreSQL when KINDGI_BENCH_DATABASE_URL is set, else PGlite. */
export const defaultBackend = (): Backend => (process.env.KINDGI_BENCH_DATABASE_URL ? "postgresql" : "pglite");

/** `--backend pglite|pg`'s value. */
export function backendFlag(value: string | undefined, usage: string): Backend {
  if (value === "pglite") return "pglite";
  if (value === "pg" || value === "postgres" || value === "postgresql") return "postgresql";
  throw new Error(`--backend must be pglite or pg, got ${value ?? "nothing"}\n${usage}`);
}
export const REQUEST_TIMEOUT_MS = 30_000;

/** A read-only tool manifest of the benchmarks' one shape (as tests/helpers/api.ts `toolManifest`), under `id`. */
export function benchToolManifest(id: string) {
  return {
    id,
    description: "Looks up a word in a benchmark dictionary.",
    version: "1.0.0",
    input: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
    output: { type: "object", properties: { definition: { type: "string" } } },
    mutating: false,
    effects: [{ kind: "reads", resource: "dictionary" }],
  };
}

/** The p-th percentile (nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * `value` with `digits` decimals beside its verdict `met(value)`, or with as many more as it takes for the figure shown
 * to be on the same side of the target: a share of 89.95 % against 90 reads "89.95 % (NOT met)", never "90.0 % (NOT
 * met)". Past four more digits, the number as JavaScript prints it (which reads back as the same number).
 */
export function figureBesideVerdict(value: number, digits: number, met: (figure: number) => boolean): string {
  const verdict = met(value);
  for (let more = 0; more <= 4; more++) {
    const shown = value.toFixed(digits + more);
    if (met(Number(shown)) === verdict) return shown;
  }
  return String(value);
}

/**
 * A plain-text table: the header, a rule of dashes, then the rows; each column as wide as its widest cell, two spaces
 * apart, right-aligned where `rightAligned(column)` says so (figures) and left-aligned elsewhere; no trailing spaces.
 */
export function textTable(header: string[], rows: string[][], rightAligned: (column: number) => boolean): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (rightAligned(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)];
}

export async function postJson(url: string, token: string, body: unknown): Promise<{ status: number; text: string; json: any }> {
  const response = await fetch(url, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  return { status: response.status, text, json: jsonOrUndefined(text) };
}

/** The JSON value of a response body, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One API call with `key` as the bearer: the JSON answer (undefined for an empty body); throws with the status and the
 * body when the status is 300 or more.
 */
export async function callApi(baseUrl: string, key: string, method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(`${baseUrl}${urlPath}`, { method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${urlPath}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Points the tenant of `key` at a streaming wire server: the secret `wire.key`, the OpenAI-compatible provider `wire`
 * at `wireBaseUrl` (its model `wire-model`), and the agent `bench.talker` (1.0.0, no tools) in `projectId`, which
 * answers through it. Returns the agent's id.
 */
export async function registerWireTalker(baseUrl: string, key: string, projectId: string, wireBaseUrl: string): Promise<string> {
  await callApi(baseUrl, key, "POST", "/v1/secrets", { name: "wire.key", value: "sk-bench-wire" });
  await callApi(baseUrl, key, "POST", "/v1/providers", { id: "wire", kind: "openai-compatible", baseUrl: wireBaseUrl, apiKeySecret: "wire.key", models: [{ name: "wire-model" }] });
  const talker = { id: "bench.talker", version: "1.0.0", name: "Talker", instructions: "Talk.", capabilities: [{ kind: "llm-inference" }], tools: [], retrieval: [], guardrails: [], preferredProvider: "wire", preferredModel: "wire-model", projectId };
  await callApi(baseUrl, key, "POST", "/v1/agents", talker);
  return talker.id;
}

export type LoadResponse = { status: number; text: string };
export type LoadClient = { name: "http" | "fetch"; request(url: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<LoadResponse>; close(): void };

/**
 * The client a load loop issues its requests with. "http": `node:http` with a keep-alive agent of `sockets`
 * connections, the lightest Node client (the load generator shares the machine's cores with the servers it measures,
 * so what it spends shows in their figures); "fetch": Node's `fetch` (undici), which costs the client about 2.5 times
 * the CPU per request. Both read every response body in full and time out after REQUEST_TIMEOUT_MS.
 */
export function loadClient(name: "http" | "fetch", sockets: number): LoadClient {
  if (name === "fetch") {
    return {
      name,
      async request(url, init) {
        const response = await fetch(url, { method: init.method, headers: init.headers, body: init.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        return { status: response.status, text: await response.text() };
      },
      close() {},
    };
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets, timeout: REQUEST_TIMEOUT_MS });
  return {
    name,
    request(url, init) {
      return new Promise<LoadResponse>((resolve, reject) => {
        const headers: Record<string, string | number> = { ...init.headers };
        if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body);
        const outgoing = http.request(url, { method: init.method, headers, agent, timeout: REQUEST_TIMEOUT_MS }, (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
          incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
          incoming.on("error", reject);
        });
        outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
        outgoing.on("error", reject);
        outgoing.end(init.body);
      });
    },
    close: () => agent.destroy(),
  };
}

export type Cleanup = { label: string; fn: () => Promise<void> | void };

/**
 * Cleanups run once, last registered first, at the end of the run or on SIGINT/SIGTERM (then the process exits
 * with 130 after `onInterrupt`, which stops the load loops). `release()` runs them and removes the signal handlers.
 */
export function cleanupOnExit(message: string, onInterrupt: () => void): { cleanups: Cleanup[]; release: () => Promise<void> } {
  const cleanups: Cleanup[] = [];
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const { label, fn } of cleanups.reverse()) {
        try {
          await fn();
        } catch (error) {
          console.error(`cleanup (${label}) failed: ${error}`);
        }
      }
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    onInterrupt();
    console.error(`\n${signal}: ${message}`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    cleanups,
    release: async () => {
      await cleanup();
      process.removeListener("SIGINT", onSignal);
      process.removeListener("SIGTERM", onSignal);
    },
  };
}

/** The integer value of a command-line flag, at least `min`; throws a message naming the flag otherwise. */
export function integerFlag(flag: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${flag} needs an integer >= ${min}, got ${value ?? "nothing"}`);
  return n;
}

/** The arithmetic mean of `values` (NaN when empty). */
export const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/** A row of an in-process benchmark: a call awaited one at a time, and its µs per call in each round. */
export type BlockRow = { label: string; call: () => Promise<unknown>; micros: number[] };

/**
 * Warms every row up with `warmup` calls, then runs `rounds` rounds of one block of `block` calls per row, the rows in
 * turn, so the rows compared see the same machine; each block's µs per call is pushed to its row's `micros`.
 */
export async function runAlternatingBlocks(rows: BlockRow[], options: { rounds: number; block: number; warmup: number }): Promise<void> {
  for (const row of rows) for (let i = 0; i < options.warmup; i++) await row.call();
  for (let round = 0; round < options.rounds; round++) {
    for (const row of rows) {
      const started = performance.now();
      for (let i = 0; i < options.block; i++) await row.call();
      row.micros.push(((performance.now() - started) * 1000) / options.block);
    }
  }
}

/**
 * Builds the product (`next build` in `root`) when its sources are newer than the build, as `npm start` does; with
 * `skipBuild`, only checks that there is a build. Throws with the build's output when it fails.
 */
export function ensureFreshBuild(root: string, skipBuild: boolean): void {
  if (skipBuild) {
    if (!fs.existsSync(path.join(root, ".next/BUILD_ID"))) throw new Error("--skip-build, but there is no build: run without it");
    return;
  }
  if (!buildIsStale(root)) return;
  console.log("building (next build)…");
  const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { cwd: root, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
}
