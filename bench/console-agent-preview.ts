/**
 * The agent editor's preview round-trip: what the console does once an edit has settled (after its debounce) —
 * POST /v1/agents/validate (every problem, tool resolution, routing), POST /v1/agents/render (the instructions with
 * the sample values) and POST /v1/agents/form (the generated parameter form), sent together as the editor sends them.
 * The figure is the time until all three answers are in; each call's own latency is reported too.
 *
 * Run:
 *   npx tsx bench/console-agent-preview.ts                 # builds Next first
 *   npx tsx bench/console-agent-preview.ts --skip-build    # reuse the current .next build
 * Flags: --edits N (measured edits, 300), --warmup N (uncounted, 30).
 *
 * Each edit changes the instructions (a new sentence), so the template is parsed anew, as it is while someone types.
 * The draft: ~1.5 KB of instructions with a condition, a loop and filters, three parameters, two tools (one range
 * resolving, one not). Against `next start` on PGlite, one edit at a time. Errors (a non-200 answer) must be 0.
 * The server and its data directory are removed at the end, also on failure.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { newOperatorToken, root, startServer, type RunningServer } from "../tests/helpers/server";
import { cleanupOnExit, percentile, postJson, integerFlag, textTable } from "./common";

type Options = { edits: number; warmup: number; skipBuild: boolean };

function parseArgs(argv: string[]): Options {
  const options: Options = { edits: 300, warmup: 30, skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--edits") options.edits = integerFlag(flag, argv[++i], 1);
    else if (flag === "--warmup") options.warmup = integerFlag(flag, argv[++i], 0);
    else throw new Error(`unknown flag ${flag}`);
  }
  return options;
}

const BODY = [
  "You are {{ agent.name }}, helping {{ customer | capitalize }} with {{ topic | downcase }} on {{ today }}.",
  "{% if strict %}Only state what the order history shows.{% else %}Say when you are unsure.{% endif %}",
  "{% for i in (1..maxItems) %}{{ i }}. Check the order step {{ i }}.\n{% endfor %}",
  ...Array.from({ length: 12 }, (_, i) => `Guidance ${i + 1}: keep answers short, cite the order number, and never promise a refund the policy does not allow.`),
].join("\n");

function draft(edit: number, tools: { id: string; version: string }[]) {
  return {
    id: "bench.preview-agent",
    version: "1.0.0",
    name: "Preview bench",
    description: "The draft the bench edits.",
    instructions: `${BODY}\nEdit ${edit}: answer in the customer's language.`,
    parameters: [
      { name: "customer", type: "string", description: "Who asks" },
      { name: "topic", type: "string" },
      { name: "maxItems", type: "number", default: 3 },
      { name: "strict", type: "boolean", default: false },
    ],
    capabilities: [{}],
    tools,
    retrieval: [],
    guardrails: [],
  };
}

const values = { customer: "ada", topic: "Billing", maxItems: 4 };

type Sample = { total: number; validate: number; render: number; form: number };

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { cleanups, release } = cleanupOnExit("stopping the bench server", () => undefined);
  if (!options.skipBuild) {
    console.log("building (next build)…");
    const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { cwd: root, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8" });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  }
  const operatorToken = newOperatorToken();
  let server: RunningServer | undefined;
  try {
    server = await startServer({ env: { KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_DEV_PROVIDERS: "1" } });
    const started = server;
    cleanups.push({ label: "server", fn: async () => { await started.stop(); if (started.dataDir) fs.rmSync(started.dataDir, { recursive: true, force: true }); } });
    const base = server.baseUrl;
    const tenant = await postJson(`${base}/v1/tenants`, operatorToken, { name: "preview bench" });
    if (tenant.status !== 201) throw new Error(`tenant creation failed: ${tenant.status} ${tenant.text}`);
    const key: string = tenant.json.apiKey.key;
    const projectId: string = tenant.json.project.id;
    const tool = await postJson(`${base}/v1/tools`, key, {
      id: "bench.order-lookup",
      version: "1.2.0",
      description: "Looks up an order.",
      input: { type: "object", properties: { order: { type: "string" } }, required: ["order"], additionalProperties: false },
      output: { type: "object" },
      mutating: false,
      effects: [{ kind: "reads", resource: "orders" }],
      // An HTTP spec, so the only warning the draft gets is the missing tool's (the bench never invokes it).
      spec: { kind: "http", method: "POST", urlTemplate: "https://orders.example.com/lookup", requestBody: { kind: "json-input" } },
      projectId,
    });
    if (tool.status !== 201) throw new Error(`tool registration failed: ${tool.status} ${tool.text} (is the build current? run without --skip-build)`);
    const tools = [{ id: "bench.order-lookup", version: "^1.0.0" }, { id: "bench.missing", version: "^1.0.0" }];

    const roundTrip = async (edit: number): Promise<Sample> => {
      const definition = draft(edit, tools);
      const parameters = definition.parameters;
      const t0 = performance.now();
      const [validate, render, form] = await Promise.all([
        timed(() => postJson(`${base}/v1/agents/validate`, key, { ...definition, projectId })),
        timed(() => postJson(`${base}/v1/agents/render`, key, { definition: { id: definition.id, name: definition.name, version: definition.version, instructions: definition.instructions, parameters }, parameters: values })),
        timed(() => postJson(`${base}/v1/agents/form`, key, { definition: { parameters } })),
      ]);
      const total = performance.now() - t0;
      for (const [name, call] of [["validate", validate], ["render", render], ["form", form]] as const) {
        if (call.value.status !== 200) throw new Error(`${name} answered ${call.value.status}: ${call.value.text.slice(0, 300)}`);
      }
      if (!render.value.json.rendered.includes(`Edit ${edit}:`)) throw new Error("render did not return the edited instructions");
      if (validate.value.json.warnings.length !== 1) throw new Error(`expected one warning (the unresolvable tool), got ${JSON.stringify(validate.value.json.warnings)}`);
      return { total, validate: validate.ms, render: render.ms, form: form.ms };
    };

    for (let i = 0; i < options.warmup; i++) await roundTrip(-1 - i);
    const samples: Sample[] = [];
    const start = performance.now();
    for (let i = 0; i < options.edits; i++) samples.push(await roundTrip(i));
    const wall = performance.now() - start;

    console.log(`draft: ${Buffer.byteLength(draft(0, tools).instructions)} bytes of instructions, 4 parameters, 2 tools; ${options.edits} edits one at a time (${options.warmup} warm-up); node ${process.version}, PGlite`);
    const header = ["measure", "p50 ms", "p95 ms", "p99 ms", "max ms"];
    const rows = (["total", "validate", "render", "form"] as const).map((field) => {
      const sorted = samples.map((s) => s[field]).sort((a, b) => a - b);
      return [field === "total" ? "round-trip (all three)" : `POST /v1/agents/${field}`, ...[50, 95, 99, 100].map((p) => percentile(sorted, p).toFixed(1))];
    });
    for (const line of textTable(header, rows, (column) => column > 0)) console.log(line);
    console.log(`all ${options.edits * 3} answers 200 · ${(options.edits / (wall / 1000)).toFixed(1)} edits/s · the editor waits 350 ms after the last keystroke before this round-trip`);
  } finally {
    await release();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
