/**
 * The catalog with 1,000 tools, in a real browser: time to first render of /tools (navigation start → the first
 * page of tools on screen) and time to search results (typing a query → the table shows exactly the matching tools).
 *
 * Run:
 *   npm run bench:console                         # builds Next first
 *   npm run bench:console -- --skip-build         # reuse the current .next build
 * Flags: --tools N (registered, 1000), --runs N (measured page loads and searches, 15), --warmup N (uncounted, 3).
 *
 * Against `npm start` (next start) on a fresh PGlite data folder, signed in as the printed admin, Debian's Chromium
 * (/usr/bin/chromium) headless at 1366×900. Each page load is a fresh browser context (no HTTP cache, no query cache);
 * the search is typed into "Search tools" of a loaded catalog and waits for the debounced server-side search (200 ms
 * debounce included in the figure). The server and its data folder are removed at the end, also on failure.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { chromium, request as playwrightRequest, type Browser } from "playwright-core";
import { root, startServer, type RunningServer } from "../tests/helpers/server";
import { cleanupOnExit, percentile, postJson, integerFlag } from "./common";

type Options = { tools: number; runs: number; warmup: number; skipBuild: boolean };

function parseArgs(argv: string[]): Options {
  const options: Options = { tools: 1000, runs: 15, warmup: 3, skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--tools") options.tools = integerFlag(flag, argv[++i], 20);
    else if (flag === "--runs") options.runs = integerFlag(flag, argv[++i], 1);
    else if (flag === "--warmup") options.warmup = integerFlag(flag, argv[++i], 0);
    else throw new Error(`unknown flag ${flag}`);
  }
  return options;
}

const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
export const benchToolId = (index: number) => `bench.tool-${String(index).padStart(4, "0")}`;

/** A tool manifest like a real one: an object input with a nested object and an enum, effects, tags. */
export function benchTool(index: number, projectId: string) {
  return {
    projectId,
    id: benchToolId(index),
    version: "1.0.0",
    description: `Bench tool number ${index}: looks a record up and ${index % 3 === 0 ? "writes a note about it" : "reads its history"}.`,
    mutating: index % 3 === 0,
    metadata: { tags: [`group-${index % 10}`, index % 2 ? "odd" : "even"] },
    effects: [{ kind: index % 3 === 0 ? "writes" : "reads", resource: `records:${index % 7}` }],
    input: { type: "object", required: ["record"], properties: { record: { type: "string" }, scope: { type: "object", properties: { region: { type: "string", enum: ["eu", "us"] } } } } },
    output: { type: "object" },
  };
}

/** Registers `count` tools with `concurrency` requests in flight. */
export async function registerBenchTools(baseUrl: string, key: string, projectId: string, count: number, concurrency = 8) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const response = await postJson(`${baseUrl}/v1/tools`, key, benchTool(index, projectId));
      if (response.status !== 201) throw new Error(`registering ${benchToolId(index)}: ${response.status} ${response.text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function signIn(baseUrl: string, email: string, password: string) {
  const context = await playwrightRequest.newContext({ baseURL: baseUrl });
  try {
    const { csrfToken } = (await (await context.get("/api/auth/csrf")).json()) as { csrfToken: string };
    const response = await context.post("/api/auth/callback/credentials", { form: { csrfToken, email, password, json: "true" } });
    if (!response.ok()) throw new Error(`sign-in failed: HTTP ${response.status()}`);
    return await context.storageState();
  } finally {
    await context.dispose();
  }
}

const ms = (value: number) => `${value.toFixed(0)} ms`;
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return `median ${ms(percentile(sorted, 50))} · p90 ${ms(percentile(sorted, 90))} · min ${ms(sorted[0])} · max ${ms(sorted[sorted.length - 1])} (n=${sorted.length})`;
};

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { cleanups, release } = cleanupOnExit("stopping the bench server", () => undefined);
  if (!options.skipBuild) {
    console.log("building (next build)…");
    const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { cwd: root, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8" });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  }
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  try {
    const key = `kgi_bench${randomBytes(16).toString("hex")}`;
    server = await startServer({ env: { KINDGI_BOOTSTRAP_API_KEY: key, KINDGI_ADMIN_EMAIL: undefined, KINDGI_ADMIN_PASSWORD: undefined, KINDGI_DEV_PROVIDERS: "1" } });
    const started = server;
    cleanups.push({ label: "server", fn: async () => { await started.stop(); if (started.dataDir) fs.rmSync(started.dataDir, { recursive: true, force: true }); } });
    const base = server.baseUrl;
    const printed = (label: string) => new RegExp(`^\\s*${label}:\\s+(\\S+)\\s*$`, "m").exec(started.output())?.[1];
    for (let waited = 0; !printed("admin password") && waited < 5000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    const email = printed("admin email");
    const password = printed("admin password");
    if (!email || !password) throw new Error(`the first start printed no admin:\n${started.output()}`);
    const whoami = await (await fetch(`${base}/v1/identity/whoami`, { headers: { Authorization: `Bearer ${key}` } })).json();
    const projectId: string = whoami.tenant.defaultProjectId;

    const t0 = performance.now();
    await registerBenchTools(base, key, projectId, options.tools);
    console.log(`registered ${options.tools} tools in ${ms(performance.now() - t0)} (8 at a time)`);
    const storageState = await signIn(base, email, password);

    browser = await chromium.launch({ executablePath: process.env.KINDGI_CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
    const first: number[] = [];
    const search: number[] = [];
    // "bench.tool-012" matches bench.tool-0120 … bench.tool-0129: ten tools, from a server-side search.
    const query = "bench.tool-012";
    const expected = Array.from({ length: 10 }, (_, index) => benchToolId(120 + index));
    for (let run = 0; run < options.warmup + options.runs; run++) {
      const context = await browser.newContext({ storageState, viewport: { width: 1366, height: 900 } });
      const page = await context.newPage();
      const start = performance.now();
      await page.goto(`${base}/tools`);
      await page.getByRole("link", { name: benchToolId(0), exact: true }).waitFor({ state: "visible", timeout: 60_000 });
      const rendered = performance.now() - start;
      const rows = await page.getByRole("table").getByRole("link", { name: /^bench\.tool-/ }).count();
      if (rows !== 50) throw new Error(`the first page shows ${rows} tools, not 50`);

      const typed = performance.now();
      await page.getByLabel("Search tools").fill(query);
      await page.waitForFunction(
        (ids) => {
          const links = [...document.querySelectorAll("table a")].map((link) => link.textContent);
          return links.length === ids.length && ids.every((id, index) => links[index] === id);
        },
        expected,
        { timeout: 60_000, polling: "raf" },
      );
      const searched = performance.now() - typed;
      if (run >= options.warmup) {
        first.push(rendered);
        search.push(searched);
      }
      await context.close();
    }
    console.log(`catalog with ${options.tools} tools, Chromium ${browser.version()} headless, ${options.runs} runs after ${options.warmup} warm-up`);
    console.log(`  time to first render of /tools (first 50 tools on screen): ${summary(first)}`);
    console.log(`  time to search results ("${query}" → 10 tools, 200 ms debounce included): ${summary(search)}`);
  } finally {
    await browser?.close();
    await release();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
