/**
 * Render-preview latency: the instructions of an agent (a ~5 KB Liquid template with two loops over 100 items,
 * conditions and filters) rendered with parameters, the way the editor preview and the kernel do it.
 *
 * Run:
 *   npx tsx bench/render-preview.ts                 # builds Next first
 *   npx tsx bench/render-preview.ts --skip-build    # reuse the current .next build
 * Flags: --iterations N (in-process renders, 5000), --requests N (HTTP requests per scenario, 1000),
 *        --concurrency N (HTTP workers of the concurrent scenario, 8), --warmup N (uncounted, 200).
 *
 * Scenarios:
 *   1. in-process, warm   – renderPreview(definition, parameters): parameter check + render, template parse cached.
 *   2. in-process, cold   – the same with a template the cache has never seen (a unique comment per iteration):
 *                           parse + analysis-free render, i.e. the first preview after an edit.
 *   3. HTTP, sequential   – POST /v1/agents/{id}/versions/1.0.0/render against `next start` (PGlite), one at a time:
 *                           auth, version lookup, render, JSON response.
 *   4. HTTP, concurrent   – the same with --concurrency workers.
 *   Baseline: GET /v1/agents/{id}/versions/1.0.0 sequentially — the same auth and version lookup without the render,
 *   so the render's share of an HTTP preview is the difference.
 * Latency = until the result (in-process) or the full response body (HTTP) is there. Errors must be 0.
 * The server, its data directory and the tenant it creates are removed at the end, also on failure.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { integerFlag, percentile, textTable } from "./common";
import { performance } from "node:perf_hooks";
import { renderPreview, type RenderableDefinition } from "../lib/agents/parameters";
import { validateAgentDefinition } from "../lib/agents/validate-agent";
import { newOperatorToken, root, startServer, type RunningServer } from "../tests/helpers/server";

type Options = { iterations: number; requests: number; concurrency: number; warmup: number; skipBuild: boolean };

function parseArgs(argv: string[]): Options {
  const options: Options = { iterations: 5000, requests: 1000, concurrency: 8, warmup: 200, skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--iterations") options.iterations = integerFlag(flag, argv[++i], 1);
    else if (flag === "--requests") options.requests = integerFlag(flag, argv[++i], 1);
    else if (flag === "--concurrency") options.concurrency = integerFlag(flag, argv[++i], 1);
    else if (flag === "--warmup") options.warmup = integerFlag(flag, argv[++i], 0);
    else throw new Error(`unknown flag ${flag}`);
  }
  return options;
}

const FILLER =
  "Read the brief carefully, note every claim that needs a source, and keep your answer short, factual and polite. " +
  "When a source is missing, say so plainly instead of guessing; when two sources disagree, name both. ";

/** A ~5 KB template: prose with interpolations, a numeric loop and a list loop of 100 items each, conditions, filters. */
function template(): string {
  const sections = [
    "You are {{ agent.name }} ({{ agent.id }} {{ agent.version }}), assisting {{ client | capitalize }} on {{ today }}; turn {{ conversation.turn }}.",
    "{% if strict %}Refuse anything you cannot verify.{% else %}Flag doubtful claims, but answer.{% endif %} The deadline is {{ deadline | date: '%d %B %Y' }}.",
    "## Checklist ({{ count }} items)",
    "{% for i in (1..count) %}{{ i }}. Check claim {{ i }} of {{ count }} for {{ client | upcase }}{% if i == 50 %} (halfway){% elsif i == count %} (last){% endif %}{% if strict and i > 90 %} [strict]{% endif %}\n{% endfor %}",
    "## Topics",
    "{% assign topics = topicList | split: ',' %}{% for topic in topics %}- {{ forloop.index }}/{{ forloop.length }}: {{ topic | strip | capitalize }}{% unless forloop.last %};{% endunless %}\n{% endfor %}",
  ];
  for (let i = 1; sections.join("\n").length < 5000; i++) sections.push(`### Guidance ${i}\n${FILLER}Section ${i} applies to {{ client }}{% if strict %} strictly{% endif %}.`);
  return sections.join("\n");
}

function definition(): RenderableDefinition & Record<string, unknown> {
  return {
    id: `bench.render-${Date.now().toString(36)}`,
    version: "1.0.0",
    name: "Render bench",
    instructions: template(),
    parameters: [
      { name: "client", type: "string" },
      { name: "count", type: "number", default: 100 },
      { name: "strict", type: "boolean", default: true },
      { name: "deadline", type: "date" },
      { name: "topicList", type: "string", description: "100 comma-separated topics" },
    ],
    capabilities: [{}],
    tools: [],
    retrieval: [],
    guardrails: [],
  };
}

const parameters = { client: "acme legal", deadline: "2025-06-30", topicList: Array.from({ length: 100 }, (_, i) => ` topic number ${i + 1}`).join(",") };

type Result = { name: string; count: number; errors: number; wallMs: number; latencies: number[]; note: string };

function inProcess(name: string, def: RenderableDefinition, iterations: number, warmup: number, cold: boolean): Result {
  const variant = (i: number): RenderableDefinition => (cold ? { ...def, instructions: `{% comment %}${name} ${i}{% endcomment %}${def.instructions}` } : def);
  for (let i = 0; i < warmup; i++) renderPreview(variant(-1 - i), parameters);
  const latencies: number[] = [];
  let errors = 0;
  let size = 0;
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const input = variant(i);
    const t0 = performance.now();
    const result = renderPreview(input, parameters);
    latencies.push(performance.now() - t0);
    if (!result.ok) errors++;
    else size = result.rendered.length;
  }
  return { name, count: iterations, errors, wallMs: performance.now() - start, latencies, note: `renders ${size} chars` };
}

async function overHttp(name: string, url: string, key: string, requests: number, concurrency: number, warmup: number, method: "POST" | "GET" = "POST"): Promise<Result> {
  const body = method === "POST" ? JSON.stringify({ parameters, conversation: { id: "bench", turn: 2 } }) : undefined;
  const once = async () => {
    const response = await fetch(url, { method, headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) }, body, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    return { ok: response.status === 200, bytes: text.length };
  };
  for (let i = 0; i < warmup; i++) await once();
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < requests) {
      next++;
      const t0 = performance.now();
      try {
        const result = await once();
        latencies.push(performance.now() - t0);
        if (!result.ok) errors++;
        bytes = result.bytes;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { name, count: requests, errors, wallMs: performance.now() - start, latencies, note: `concurrency ${concurrency}, response ${bytes} bytes` };
}

function printTable(results: Result[]): void {
  const rows = results.map((r) => {
    const sorted = [...r.latencies].sort((a, b) => a - b);
    return [r.name, String(r.count), String(r.errors), percentile(sorted, 50).toFixed(3), percentile(sorted, 99).toFixed(3), (r.count / (r.wallMs / 1000)).toFixed(0), r.note];
  });
  const header = ["scenario", "n", "errors", "p50 ms", "p99 ms", "ops/s", "note"];
  for (const line of textTable(header, rows, (column) => column >= 1 && column <= 5)) console.log(line);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const def = definition();
  const validation = validateAgentDefinition(def);
  if (!validation.ok) throw new Error(`bench definition is invalid: ${JSON.stringify(validation.issues)}`);
  console.log(`template: ${Buffer.byteLength(def.instructions)} bytes, loops over ${100} numbers and ${100} topics; node ${process.version}`);

  const results: Result[] = [];
  results.push(inProcess("in-process, warm (parse cached)", def, options.iterations, options.warmup, false));
  results.push(inProcess("in-process, cold (parse + render)", def, Math.max(1, Math.floor(options.iterations / 5)), Math.min(options.warmup, 50), true));

  if (!options.skipBuild) {
    console.log("building (next build)…");
    const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { cwd: root, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8" });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  }
  const operatorToken = newOperatorToken();
  let server: RunningServer | undefined;
  try {
    server = await startServer({ env: { KINDGI_OPERATOR_TOKEN: operatorToken } });
    const tenantResponse = await fetch(`${server.baseUrl}/v1/tenants`, { method: "POST", headers: { Authorization: `Bearer ${operatorToken}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "render bench" }) });
    if (tenantResponse.status !== 201) throw new Error(`tenant creation failed: ${tenantResponse.status} ${await tenantResponse.text()}`);
    const tenant = (await tenantResponse.json()) as { project: { id: string }; apiKey: { key: string } };
    const registered = await fetch(`${server.baseUrl}/v1/agents`, { method: "POST", headers: { Authorization: `Bearer ${tenant.apiKey.key}`, "Content-Type": "application/json" }, body: JSON.stringify({ ...def, projectId: tenant.project.id }) });
    if (registered.status !== 201) throw new Error(`agent registration failed: ${registered.status} ${await registered.text()} (is the build current? run without --skip-build)`);
    const versionUrl = `${server.baseUrl}/v1/agents/${def.id}/versions/1.0.0`;
    const url = `${versionUrl}/render`;
    results.push(await overHttp("HTTP, sequential GET version (baseline)", versionUrl, tenant.apiKey.key, options.requests, 1, options.warmup, "GET"));
    results.push(await overHttp("HTTP, sequential", url, tenant.apiKey.key, options.requests, 1, options.warmup));
    results.push(await overHttp("HTTP, concurrent", url, tenant.apiKey.key, options.requests, options.concurrency, options.warmup));
  } finally {
    await server?.stop();
    if (server?.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
  console.log("");
  printTable(results);
  if (results.some((r) => r.errors > 0)) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack ?? error.message : error);
  process.exit(1);
});
