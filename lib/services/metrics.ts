/**
 * The process's Prometheus metrics (prom-client), served by `GET /metrics` (app/metrics/route.ts) when
 * KINDGI_METRICS_TOKEN is set. Counters and histograms are this process's own, incremented where the events happen
 * (run creation and the kernel's commit in lib/services/kernel-store.ts, an execution's end through the worker's hook
 * in lib/services/kernel.ts, model and tool calls in lib/services/kernel-environment.ts); with several replicas each
 * serves its own. The gauges are read at scrape time: from the database (global: the same on every replica), from the
 * event bus and from the connection pools (this process's).
 *
 * The registry is kept on `globalThis`: Next bundles the instrumentation hook (where the worker runs) and the route
 * handlers separately, and both must count into the same one.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { timingSafeEqual } from "node:crypto";

type Metrics = ReturnType<typeof createMetrics>;
const holder = globalThis as unknown as { kindgiMetrics?: Metrics };

/** Seconds: model calls and turns take from milliseconds (dev providers) to minutes. */
const SLOW_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

function createMetrics() {
  const registry = new Registry();
  const runsStarted = new Counter({ name: "kindgi_runs_started_total", help: "Runs created, by origin (session, api-key, service-account, schedule, webhook, mcp).", labelNames: ["origin"], registers: [registry] });
  const runsCompleted = new Counter({ name: "kindgi_runs_completed_total", help: "Runs that completed, by origin.", labelNames: ["origin"], registers: [registry] });
  const runsFailed = new Counter({ name: "kindgi_runs_failed_total", help: "Runs that failed, by origin.", labelNames: ["origin"], registers: [registry] });
  const turnDuration = new Histogram({ name: "kindgi_turn_duration_seconds", help: "One execution of a run by this worker, from taking it up to settling it (completed, failed, suspended) or stopping (lease lost, cancelled); waits for approvals are not in it.", labelNames: ["outcome"], buckets: SLOW_BUCKETS, registers: [registry] });
  const modelCallDuration = new Histogram({ name: "kindgi_model_call_duration_seconds", help: "Model calls, by provider kind and outcome (ok, error).", labelNames: ["provider", "outcome"], buckets: SLOW_BUCKETS, registers: [registry] });
  const toolCallDuration = new Histogram({ name: "kindgi_tool_call_duration_seconds", help: "Tool calls, by transport (native, http, handler, mcp; none: not invocable) and outcome (ok, error, paused).", labelNames: ["transport", "outcome"], buckets: SLOW_BUCKETS, registers: [registry] });
  return { registry, runsStarted, runsCompleted, runsFailed, turnDuration, modelCallDuration, toolCallDuration };
}

export function metrics(): Metrics {
  if (!holder.kindgiMetrics) {
    holder.kindgiMetrics = createMetrics();
    registerGauges(holder.kindgiMetrics.registry);
  }
  return holder.kindgiMetrics;
}

/** The origin label of a run's origin column (`{kind, …}`). */
export function originLabel(origin: unknown): string {
  const kind = origin && typeof origin === "object" ? (origin as { kind?: unknown }).kind : undefined;
  return typeof kind === "string" ? kind : "unknown";
}

/** A run was created (after its transaction committed). A run written already finished counts as ended too. */
export function countRunStarted(origin: unknown, status: string): void {
  const m = metrics();
  const label = originLabel(origin);
  m.runsStarted.inc({ origin: label });
  countRunEnded(label, status);
}

/** A commit set the run's status: completed and failed are counted. */
export function countRunEnded(origin: string, status: string | undefined): void {
  if (status === "completed") metrics().runsCompleted.inc({ origin });
  else if (status === "failed") metrics().runsFailed.inc({ origin });
}

export function observeTurn(seconds: number, outcome: string): void {
  metrics().turnDuration.observe({ outcome }, seconds);
}

export function observeModelCall(provider: string, seconds: number, ok: boolean): void {
  metrics().modelCallDuration.observe({ provider, outcome: ok ? "ok" : "error" }, seconds);
}

export function observeToolCall(transport: string, seconds: number, outcome: "ok" | "error" | "paused"): void {
  metrics().toolCallDuration.observe({ transport, outcome }, seconds);
}

/** The gauges computed at scrape time. Their collect callbacks read the database: a scrape costs a few small queries. */
function registerGauges(registry: Registry): void {
  new Gauge({
    name: "kindgi_approvals_pending",
    help: "Approvals waiting for a decision (all tenants, all replicas).",
    registers: [registry],
    async collect() {
      const row = await dbGauges();
      this.set(row.pending);
    },
  });
  new Gauge({
    name: "kindgi_approval_oldest_pending_age_seconds",
    help: "How long the oldest pending approval has waited (0 when none waits).",
    registers: [registry],
    async collect() {
      this.set((await dbGauges()).oldestAgeSeconds);
    },
  });
  new Gauge({
    name: "kindgi_runs_suspended",
    help: "Runs suspended, waiting on an approval or a paused tool call (all replicas).",
    registers: [registry],
    async collect() {
      this.set((await dbGauges()).suspended);
    },
  });
  new Gauge({
    name: "kindgi_runs_leased",
    help: "Pending or running runs under a lease: held by this process's worker (worker=\"self\") and by any (worker=\"all\").",
    labelNames: ["worker"],
    registers: [registry],
    async collect() {
      const row = await dbGauges();
      this.set({ worker: "self" }, row.leasedSelf);
      this.set({ worker: "all" }, row.leasedAll);
    },
  });
  new Gauge({
    name: "kindgi_event_bus_listening",
    help: "1 when the event bus hears the other replicas (PostgreSQL: its LISTEN connection is up; PGlite: always, in-process).",
    registers: [registry],
    async collect() {
      const { busState } = await import("@/lib/services/event-bus-postgres");
      this.set(busState().listening ? 1 : 0);
    },
  });
  new Gauge({
    name: "kindgi_event_bus_last_heard_age_seconds",
    help: "PostgreSQL: seconds since a message from another replica was last heard on the bus (absent until one is; PGlite: absent).",
    labelNames: ["transport"],
    registers: [registry],
    async collect() {
      const { busState } = await import("@/lib/services/event-bus-postgres");
      const { lastHeardAt } = busState();
      this.reset();
      if (lastHeardAt !== null) this.set({ transport: "postgresql" }, (Date.now() - lastHeardAt) / 1000);
    },
  });
  new Gauge({
    name: "kindgi_db_pool_connections",
    help: "PostgreSQL: this process's pooled connections, by pool (main, side) and state (in_use, idle, waiting: requests queued for one). PGlite: absent (no pool).",
    labelNames: ["pool", "state"],
    registers: [registry],
    async collect() {
      const { poolStats } = await import("@/lib/db");
      const stats = await poolStats();
      this.reset();
      if (!stats) return;
      for (const [pool, s] of Object.entries(stats)) {
        this.set({ pool, state: "in_use" }, s.total - s.idle);
        this.set({ pool, state: "idle" }, s.idle);
        this.set({ pool, state: "waiting" }, s.waiting);
      }
    },
  });
}

type DbGauges = { pending: number; oldestAgeSeconds: number; suspended: number; leasedSelf: number; leasedAll: number };
/** One query per scrape for all the database gauges: the collect callbacks of one scrape share it ({@link renderMetrics} starts afresh). */
let thisScrape: Promise<DbGauges> | null = null;

function dbGauges(): Promise<DbGauges> {
  thisScrape ??= readDbGauges();
  return thisScrape;
}

async function readDbGauges(): Promise<DbGauges> {
  const [{ getSideQuery }, { getKernel }] = await Promise.all([import("@/lib/db"), import("@/lib/services/kernel")]);
  const query = await getSideQuery();
  const owner = getKernel().id;
  const [row] = await query<{ pending: number; oldest: number | null; suspended: number; leased_self: number; leased_all: number }>(
    `SELECT
      (SELECT count(*)::int FROM "Approval" WHERE status = 'pending') AS pending,
      (SELECT EXTRACT(EPOCH FROM now() - min("requestedAt"))::float8 FROM "Approval" WHERE status = 'pending') AS oldest,
      (SELECT count(*)::int FROM "Run" WHERE status = 'suspended') AS suspended,
      (SELECT count(*)::int FROM "Run" WHERE status IN ('pending', 'running') AND "leaseOwner" = $1 AND "leaseExpiresAt" > now()) AS leased_self,
      (SELECT count(*)::int FROM "Run" WHERE status IN ('pending', 'running') AND "leaseOwner" IS NOT NULL AND "leaseExpiresAt" > now()) AS leased_all`,
    [owner],
  );
  return { pending: Number(row.pending), oldestAgeSeconds: Math.max(0, Number(row.oldest ?? 0)), suspended: Number(row.suspended), leasedSelf: Number(row.leased_self), leasedAll: Number(row.leased_all) };
}

/**
 * Whether the request may read the metrics: "off" when KINDGI_METRICS_TOKEN is not set (the route is then unknown),
 * "ok" for `Authorization: Bearer <token>` (compared in constant time), else "denied".
 */
export function metricsAccess(authorization: string | null, token: string | undefined = process.env.KINDGI_METRICS_TOKEN): "off" | "ok" | "denied" {
  if (!token) return "off";
  const match = /^Bearer (.+)$/i.exec(authorization ?? "");
  if (!match) return "denied";
  const given = Buffer.from(match[1].trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want) ? "ok" : "denied";
}

/** The exposition (Prometheus text format) and its content type. */
export async function renderMetrics(): Promise<{ text: string; contentType: string }> {
  const { registry } = metrics();
  thisScrape = null;
  try {
    return { text: await registry.metrics(), contentType: registry.contentType };
  } finally {
    thisScrape = null;
  }
}
