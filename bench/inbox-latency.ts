/**
 * The approval inbox's latency, end to end in a real browser:
 * - created → visible: a run asks for approval of a mutating HTTP tool's call (POST /v1/runs returns `suspended`);
 *   the page's MutationObserver records when that approval's row is in /approvals. Measured from the moment the
 *   create request returned, and from the approval's `requestedAt` (the server's clock: the same machine). One
 *   pending at a time (withdrawn through the API before the next), then bursts of 10 created at once.
 * - click Approve → the tool's first byte: with the item shown, a capturing click listener records when "Approve" is
 *   clicked, and the tool's target server records when the request arrives (its `request` event: the headers).
 *
 * Run:
 *   npm run bench:inbox                        # PGlite (embedded); builds first when the build is stale
 *   npm run bench:inbox -- --backend pg        # PostgreSQL at $KINDGI_BENCH_DATABASE_URL, $DATABASE_URL or the local default
 *   npm run bench:inbox -- --both              # both backends, one table
 * Flags: --n N (sequential creations, 60), --bursts N (bursts of 10, 3; 0 skips them), --burst-size N (10),
 *   --clicks N (approvals clicked, 30), --warmup N (uncounted, 3 of each), --skip-build (reuse .next as it is).
 * A PostgreSQL run uses a fresh database, dropped at the end; a PGlite run a fresh data folder, removed at the end.
 * The page is Debian's Chromium (/usr/bin/chromium, or $KINDGI_CHROMIUM) headless at 1366×900, signed in as the
 * admin the first start printed. Output: a table (ms), then one JSON line. Exits 1 with a message on failure.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, request as playwrightRequest, type Browser, type Page } from "playwright-core";
import { freshPostgresDatabase, root, startServer, type RunningServer } from "../tests/helpers/server";
import { cleanupOnExit, DEFAULT_PG_URL, ensureFreshBuild, integerFlag, percentile, postJson, REQUEST_TIMEOUT_MS, type Cleanup } from "./common";
import { instrumentInbox, waitForMark } from "./inbox-page";

type Backend = "pglite" | "postgresql";
type Options = { n: number; bursts: number; burstSize: number; clicks: number; warmup: number; backends: Backend[]; skipBuild: boolean };

const USAGE = "usage: npm run bench:inbox -- [--backend pglite|pg | --both] [--n N] [--bursts N] [--burst-size N] [--clicks N] [--warmup N] [--skip-build]";
const WAIT_MS = 20_000;
/** The launch flags of playwright.config.ts. */
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const pgUrl = () => process.env.KINDGI_BENCH_DATABASE_URL || process.env.DATABASE_URL || DEFAULT_PG_URL;

function parseArgs(argv: string[]): Options {
  const options: Options = { n: 60, bursts: 3, burstSize: 10, clicks: 30, warmup: 3, backends: [process.env.KINDGI_BENCH_DATABASE_URL || process.env.DATABASE_URL ? "postgresql" : "pglite"], skipBuild: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "--skip-build") options.skipBuild = true;
    else if (flag === "--both") options.backends = ["pglite", "postgresql"];
    else if (flag === "--backend") {
      const value = argv[++i];
      if (value === "pglite") options.backends = ["pglite"];
      else if (value === "pg" || value === "postgres" || value === "postgresql") options.backends = ["postgresql"];
      else throw new Error(`--backend must be pglite or pg, got ${value ?? "nothing"}\n${USAGE}`);
    } else if (flag === "--n") options.n = integerFlag(flag, argv[++i], 1);
    else if (flag === "--bursts") options.bursts = integerFlag(flag, argv[++i], 0);
    else if (flag === "--burst-size") options.burstSize = integerFlag(flag, argv[++i], 2);
    else if (flag === "--clicks") options.clicks = integerFlag(flag, argv[++i], 1);
    else if (flag === "--warmup") options.warmup = integerFlag(flag, argv[++i], 0);
    else throw new Error(`unknown flag ${flag}\n${USAGE}`);
  }
  return options;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn` once, however often the result is called (a cleanup may run from a signal and from `finally`). */
function once(fn: () => Promise<void> | void): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => (done ??= Promise.resolve().then(fn));
}

async function getJson(url: string, token: string): Promise<any> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function signIn(baseUrl: string, email: string, password: string) {
  const context = await playwrightRequest.newContext({ baseURL: baseUrl });
  try {
    const { csrfToken } = (await (await context.get("/api/auth/csrf")).json()) as { csrfToken: string };
    const response = await context.post("/api/auth/callback/credentials", { form: { csrfToken, email, password, json: "true" } });
    if (!response.ok()) throw new Error(`sign-in failed: HTTP ${response.status()}`);
    const storage = await context.storageState();
    if (!storage.cookies.some((cookie) => cookie.name.endsWith("next-auth.session-token"))) throw new Error("sign-in set no session cookie");
    return storage;
  } finally {
    await context.dispose();
  }
}

/** The tool's target: records `Date.now()` when each request's headers arrive (its first bytes), by the word it carries. */
async function startTarget() {
  const arrivals = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      let word = "?";
      try {
        word = String(JSON.parse(Buffer.concat(chunks).toString("utf8")).word);
      } catch {
        // not ours
      }
      if (!arrivals.has(word)) arrivals.set(word, at);
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ charged: word }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    hostPort: `127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Figures = { n: number; p50: number; p95: number; p99: number; max: number; min: number };
function figures(samples: number[]): Figures {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted[sorted.length - 1], min: sorted[0] };
}

type BackendResult = {
  backend: Backend;
  sequential: { fromReturn: Figures; fromRequestedAt: Figures };
  burst?: { fromReturn: Figures; fromRequestedAt: Figures };
  clickToFirstByte: Figures;
  loadAverage: number[];
};

async function measureBackend(backend: Backend, options: Options, browser: Browser, cleanups: Cleanup[]): Promise<BackendResult> {
  const local: Array<() => Promise<void>> = [];
  let failurePage: Page | undefined;
  const track = (label: string, fn: () => Promise<void> | void) => {
    const wrapped = once(fn);
    cleanups.push({ label, fn: wrapped });
    local.push(wrapped);
  };
  try {
    const target = await startTarget();
    track("tool target", target.close);
    const database = backend === "postgresql" ? await freshPostgresDatabase(pgUrl()) : null;
    if (database) track("database", database.drop);
    const key = `kgi_bench${randomBytes(16).toString("hex")}`;
    const server: RunningServer = await startServer({
      env: { DATABASE_URL: database?.url, KINDGI_BOOTSTRAP_API_KEY: key, KINDGI_ADMIN_EMAIL: undefined, KINDGI_ADMIN_PASSWORD: undefined, KINDGI_DEV_PROVIDERS: "1", KINDGI_SECRETS_KEY: randomBytes(32).toString("base64") },
    });
    track("server", async () => {
      await server.stop();
      // Its connections may take a moment to close before the database can be dropped.
      if (database) await sleep(1000);
      if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
    });
    const base = server.baseUrl;
    const printed = (label: string) => new RegExp(`^\\s*${label}:\\s+(\\S+)\\s*$`, "m").exec(server.output())?.[1];
    for (let waited = 0; !printed("admin password") && waited < 5000; waited += 100) await sleep(100);
    const email = printed("admin email");
    const password = printed("admin password");
    if (!email || !password) throw new Error(`the first start printed no admin email and password:\n${server.output()}`);
    const projectId: string = (await getJson(`${base}/v1/identity/whoami`, key)).tenant.defaultProjectId;

    const toolId = "bench.charge";
    const agentId = "bench.charger";
    const tool = await postJson(`${base}/v1/tools`, key, {
      projectId,
      id: toolId,
      version: "1.0.0",
      description: "Charges for a word.",
      mutating: true,
      effects: [{ kind: "external-side-effect", resource: "external:payments" }],
      input: { type: "object", required: ["word"], additionalProperties: false, properties: { word: { type: "string", description: "What to charge for" } } },
      output: { type: "object" },
      network: { kind: "allowlist", hosts: [target.hostPort] },
      spec: { kind: "http", method: "POST", urlTemplate: `http://${target.hostPort}/charge`, requestBody: { kind: "json-input" } },
    });
    if (tool.status !== 201) throw new Error(`tool registration failed: ${tool.status} ${tool.text.slice(0, 500)} (is the build current? run without --skip-build)`);
    // dev-echo (a built-in provider, not a real model) calls the agent's one tool with the user's message as `word`.
    const agent = await postJson(`${base}/v1/agents`, key, { projectId, id: agentId, version: "1.0.0", name: "Charger", description: "Charges words.", instructions: "Charge what is asked.", parameters: [], capabilities: [{ kind: "llm-inference" }], tools: [{ id: toolId, version: "^1.0.0" }], retrieval: [], guardrails: [] });
    if (agent.status !== 201) throw new Error(`agent registration failed: ${agent.status} ${agent.text.slice(0, 500)}`);

    /** Starts a run that asks for approval; returns its approval and the instant the create request returned. */
    const ask = async (word: string) => {
      const run = await postJson(`${base}/v1/runs`, key, { agent: { id: agentId }, input: { userMessage: word } });
      const returnedAt = Date.now();
      if (run.json?.status !== "suspended") throw new Error(`the run for "${word}" did not suspend on an approval: ${run.status} ${run.text.slice(0, 500)}`);
      return { runId: run.json.id as string, returnedAt };
    };
    const pendingOf = async (runId: string) => {
      const approval = (await getJson(`${base}/v1/approvals?runId=${runId}&status=pending`, key)).data[0] as { id: string; requestedAt: string } | undefined;
      if (!approval) throw new Error(`run ${runId} is suspended with no pending approval`);
      return approval;
    };
    const withdraw = async (approvalId: string) => {
      const decided = await postJson(`${base}/v1/approvals/${approvalId}/complete`, key, { decision: "withdraw" });
      if (decided.status !== 200) throw new Error(`withdrawing ${approvalId} failed: ${decided.status} ${decided.text.slice(0, 300)}`);
    };
    const runEnds = async (runId: string, status: string) => {
      for (const until = Date.now() + WAIT_MS; Date.now() < until; await sleep(25)) if ((await getJson(`${base}/v1/runs/${runId}`, key)).status === status) return;
      throw new Error(`run ${runId} did not become ${status} within ${WAIT_MS} ms`);
    };

    const context = await browser.newContext({ storageState: await signIn(base, email, password), viewport: { width: 1366, height: 900 }, colorScheme: "light" });
    track("browser context", () => context.close());
    const page: Page = await context.newPage();
    failurePage = page;
    await instrumentInbox(page);
    await page.goto(`${base}/approvals`);
    await page.getByRole("heading", { name: /^Approvals/, level: 1 }).waitFor({ timeout: WAIT_MS });
    await page.waitForSelector("[data-testid=live-indicator][data-live=true]", { timeout: WAIT_MS });
    await page.getByText("Nothing waits for a decision").waitFor({ timeout: WAIT_MS });
    const label = backend === "pglite" ? "PGlite" : "PostgreSQL";

    // 1. Created → visible, one pending at a time.
    const fromReturn: number[] = [];
    const fromRequestedAt: number[] = [];
    for (let i = 0; i < options.warmup + options.n; i++) {
      const { runId, returnedAt } = await ask(`v${i}`);
      const approval = await pendingOf(runId);
      const seenAt = await waitForMark(page, "seen", approval.id, WAIT_MS);
      if (i >= options.warmup) {
        fromReturn.push(seenAt - returnedAt);
        fromRequestedAt.push(seenAt - Date.parse(approval.requestedAt));
      }
      await withdraw(approval.id);
      await waitForMark(page, "gone", approval.id, WAIT_MS);
    }
    console.log(`  ${label}: ${options.n} sequential creations measured`);

    // 1b. Bursts: `burstSize` created at once, all withdrawn before the next burst.
    let burst: BackendResult["burst"];
    if (options.bursts > 0) {
      const burstReturn: number[] = [];
      const burstRequested: number[] = [];
      for (let b = 0; b < options.bursts; b++) {
        const created = await Promise.all(Array.from({ length: options.burstSize }, (_, j) => ask(`b${b}-${j}`)));
        const approvals = await Promise.all(created.map(({ runId }) => pendingOf(runId)));
        for (const [j, approval] of approvals.entries()) {
          const seenAt = await waitForMark(page, "seen", approval.id, WAIT_MS);
          burstReturn.push(seenAt - created[j].returnedAt);
          burstRequested.push(seenAt - Date.parse(approval.requestedAt));
        }
        for (const approval of approvals) await withdraw(approval.id);
        for (const approval of approvals) await waitForMark(page, "gone", approval.id, WAIT_MS);
      }
      burst = { fromReturn: figures(burstReturn), fromRequestedAt: figures(burstRequested) };
      console.log(`  ${label}: ${options.bursts} bursts of ${options.burstSize} measured`);
    }

    // 2. Click "Approve" → the tool's first byte, the item shown and selected (the only pending one).
    const clicks: number[] = [];
    for (let i = 0; i < options.warmup + options.clicks; i++) {
      const word = `c${i}`;
      const { runId } = await ask(word);
      const approval = await pendingOf(runId);
      await waitForMark(page, "seen", approval.id, WAIT_MS);
      const approve = page.locator(`article[data-approval-id="${approval.id}"]`).getByRole("button", { name: "Approve", exact: true });
      await approve.waitFor({ state: "visible", timeout: WAIT_MS });
      await approve.click({ timeout: WAIT_MS });
      const clickedAt = await waitForMark(page, "clicks", approval.id, WAIT_MS);
      for (const until = Date.now() + WAIT_MS; !target.arrivals.has(word) && Date.now() < until; ) await sleep(2);
      const arrivedAt = target.arrivals.get(word);
      if (arrivedAt === undefined) throw new Error(`the tool call of run ${runId} never reached the tool's server after Approve was clicked`);
      if (i >= options.warmup) clicks.push(arrivedAt - clickedAt);
      await waitForMark(page, "gone", approval.id, WAIT_MS);
      await runEnds(runId, "completed");
    }
    console.log(`  ${label}: ${options.clicks} approvals clicked`);
    failurePage = undefined;
    return { backend, sequential: { fromReturn: figures(fromReturn), fromRequestedAt: figures(fromRequestedAt) }, burst, clickToFirstByte: figures(clicks), loadAverage: os.loadavg().map((value) => Math.round(value * 10) / 10) };
  } catch (error) {
    // What the page showed when it failed, for the message.
    if (failurePage) {
      const file = path.join(os.tmpdir(), `kindgi-bench-inbox-${backend}-failure.png`);
      const saved = await failurePage.screenshot({ path: file, fullPage: true }).then(() => true, () => false);
      if (saved && error instanceof Error) error.message += ` (the page at the failure: ${file})`;
    }
    throw error;
  } finally {
    for (const fn of local.reverse()) {
      try {
        await fn();
      } catch (error) {
        console.error(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

function table(results: BackendResult[], options: Options): string {
  const lines = ["| backend | measurement | n | p50 | p95 | p99 | max |", "|---|---|---|---|---|---|---|"];
  const row = (backend: Backend, what: string, f: Figures) => lines.push(`| ${backend === "pglite" ? "PGlite" : "PostgreSQL"} | ${what} | ${f.n} | ${f.p50} | ${f.p95} | ${f.p99} | ${f.max} |`);
  for (const result of results) {
    row(result.backend, "created → visible, from the create request's return", result.sequential.fromReturn);
    row(result.backend, "created → visible, from `requestedAt`", result.sequential.fromRequestedAt);
    if (result.burst) {
      row(result.backend, `burst of ${options.burstSize}: created → visible, from each create's return`, result.burst.fromReturn);
      row(result.backend, `burst of ${options.burstSize}: created → visible, from \`requestedAt\``, result.burst.fromRequestedAt);
    }
    row(result.backend, "click Approve → the tool's first byte", result.clickToFirstByte);
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { cleanups, release } = cleanupOnExit("stopping the bench servers", () => undefined);
  try {
    ensureFreshBuild(root, options.skipBuild);
    const browser = await chromium.launch({ executablePath: process.env.KINDGI_CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
    cleanups.push({ label: "browser", fn: once(() => browser.close()) });
    const results: BackendResult[] = [];
    for (const backend of options.backends) {
      console.log(`${backend === "pglite" ? "PGlite (embedded, fresh data folder)" : `PostgreSQL (${new URL(pgUrl()).host}, fresh database)`}…`);
      results.push(await measureBackend(backend, options, browser, cleanups));
    }
    console.log("");
    console.log(`approval inbox latency (ms), Chromium ${browser.version()} headless; ${options.warmup} uncounted warm-up of each kind; load average at the end ${results.map((result) => `${result.backend} ${result.loadAverage.join("/")}`).join(", ")}`);
    console.log(table(results, options));
    console.log(JSON.stringify({ options, results }));
  } finally {
    await release();
  }
}

main().catch((error) => {
  console.error(`bench:inbox failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
