/**
 * The worker: executes runs under a lease. A run created in this process is executed here at once (its lease is
 * taken at creation); others — runs whose worker died, on this machine or another replica — are claimed by a
 * poll once their lease expires. While it executes a run the worker renews the lease; when it cannot (it stalled
 * past the lease, the run was cancelled) it stops without writing, and the journal tells the next worker where
 * to continue.
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { advanceRun, endExecution, LeaseLost, type TurnContext, type TurnSession } from "@/lib/kernel/turn";
import type { KernelEnvironment } from "@/lib/kernel/environment";
import type { CommitPlan, KernelStore, KernelTx } from "@/lib/kernel/store";
import { isRunnableStatus, type NewEvent } from "@/lib/kernel/types";
import { addLogContext, log, withLogContext } from "@/lib/log";

export type WorkerOptions = {
  /** How long a lease lasts without renewal (KINDGI_RUN_LEASE_MS, default 30000). */
  leaseMs: number;
  /** How often expired leases are looked for (KINDGI_RUN_POLL_MS, default 1000). */
  pollMs: number;
  /** Runs executed at once by this worker (KINDGI_RUN_CONCURRENCY, default 32). */
  concurrency: number;
};

export function workerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerOptions {
  const num = (value: string | undefined, fallback: number, min: number) => {
    const parsed = Number(value);
    return Number.isFinite(parsed) && parsed >= min ? parsed : fallback;
  };
  return { leaseMs: num(env.KINDGI_RUN_LEASE_MS, 30_000, 1_000), pollMs: num(env.KINDGI_RUN_POLL_MS, 1_000, 50), concurrency: num(env.KINDGI_RUN_CONCURRENCY, 32, 1) };
}

/**
 * What an execution ended with: the run row its last commit answered (the store adapter's whole row), when that
 * commit settled the run — a caller that created the run answers from it without reading the run back.
 */
export type Execution = { settledRow: unknown | null };

/** Who hears of the worker's commits (the product's event bus, for the streams and waiting requests of every replica). */
export type WorkerHooks = {
  committed?: (runId: string, lastSeq?: number) => void;
  /** An execution ended: how long it took (ms), and whether it settled the run (completed, failed, suspended) or stopped. */
  executed?: (runId: string, ms: number, outcome: "settled" | "stopped") => void;
  /**
   * A commit of the run wrote these events (after it committed), at `at`; `row` is what the store answered of the run
   * row when it did (the product's traces).
   */
  journaled?: (runId: string, events: readonly NewEvent[], at: Date, row?: unknown) => void;
  /** Wraps each execution of a run (the product runs it in the run's trace context). */
  around?: <T>(runId: string, execution: () => Promise<T>) => Promise<T>;
};

export class KernelWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  private readonly active = new Map<string, { controller: AbortController; done: Promise<Execution> }>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly store: KernelStore,
    private readonly env: KernelEnvironment,
    readonly options: WorkerOptions,
    private readonly hooks: WorkerHooks = {},
  ) {}

  /** Starts polling for runs to resume. `freeForeignLeases`: the process is the database's only user (embedded). */
  async start(options: { freeForeignLeases: boolean }): Promise<void> {
    if (this.timer) return;
    if (options.freeForeignLeases) await this.store.freeForeignLeases(this.id);
    this.timer = setInterval(() => void this.poll(), this.options.pollMs);
    this.timer.unref();
    void this.poll();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const { controller } of this.active.values()) controller.abort(new Error("worker stopping"));
  }

  /** Whether this worker is executing the run now. */
  isExecuting(runId: string): boolean {
    return this.active.has(runId);
  }

  /** Stops executing a run (it was cancelled): in-flight model and tool calls are aborted. */
  abort(runId: string, reason: string): void {
    this.active.get(runId)?.controller.abort(new Error(reason));
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const free = this.options.concurrency - this.active.size;
      if (free <= 0) return;
      const claimed = await this.store.claim(this.id, this.options.leaseMs, free);
      for (const run of claimed) void this.execute(run.id, { resumedFrom: run.previousOwner });
    } catch (error) {
      log.error("claiming runs failed", { err: error });
    } finally {
      this.polling = false;
    }
  }

  /**
   * Executes a run this worker holds the lease of, step by step until it is settled or the lease is lost.
   * `resumedFrom`: the run was claimed from an expired lease (journaled as run-resumed when it had started).
   * `session`: what the run's creator already knows (the run row, its journal, the definition), so nothing is read back.
   */
  execute(runId: string, options: { resumedFrom?: string | null; session?: TurnSession } = {}): Promise<Execution> {
    const existing = this.active.get(runId);
    if (existing) return existing.done;
    const controller = new AbortController();
    const around = this.hooks.around;
    const execution = () => this.loop(runId, controller, options);
    // What is logged while the run executes carries its id and tenant (and the id of the request that started it, if any).
    const done = withLogContext({ runId, tenantId: options.session?.run?.tenantId }, () => (around ? around(runId, execution) : execution())).finally(() => this.active.delete(runId));
    this.active.set(runId, { controller, done });
    return done;
  }

  private async loop(runId: string, controller: AbortController, options: { resumedFrom?: string | null; session?: TurnSession }): Promise<Execution> {
    const heartbeat = setInterval(() => {
      void this.store.renewLease(runId, this.id, this.options.leaseMs).then(
        (held) => held || controller.abort(new Error("lease lost")),
        () => {},
      );
    }, Math.max(250, Math.floor(this.options.leaseMs / 3)));
    heartbeat.unref();
    const startedAt = performance.now();
    const session: TurnSession = options.session ?? {};
    const ctx: TurnContext = { store: this.notifying(runId), env: this.env, owner: this.id, signal: controller.signal, session };
    let settled = false;
    try {
      if (options.resumedFrom !== undefined) {
        const run = await this.store.loadRun(runId);
        if (!run || !isRunnableStatus(run.status)) return { settledRow: null };
        session.run = run;
        addLogContext({ tenantId: run.tenantId });
        if (run.lastSeq > 1) {
          const resumed = await ctx.store.append(runId, this.id, { events: [{ type: "run-resumed", data: { worker: this.id, previousWorker: options.resumedFrom ?? null } }] });
          if (resumed) run.lastSeq = resumed.seqs[resumed.seqs.length - 1];
        }
      }
      while (!controller.signal.aborted) {
        if ((await advanceRun(ctx, runId)) === "settled") {
          settled = true;
          break;
        }
      }
    } catch (error) {
      if (!(error instanceof LeaseLost) && !controller.signal.aborted) await this.failUnexpectedly(runId, error);
    } finally {
      clearInterval(heartbeat);
      endExecution(ctx);
      // A commit that finished the run (or suspended it) cleared the lease in its own statement.
      if (!session.leaseReleased) await this.store.releaseLease(runId, this.id).catch(() => {});
      try {
        this.hooks.executed?.(runId, performance.now() - startedAt, settled ? "settled" : "stopped");
      } catch {
        // A hook's failure never touches the run.
      }
    }
    return { settledRow: settled && session.leaseReleased ? (session.lastRow ?? null) : null };
  }

  /** An unexpected error ends the run as failed (`internal-error`); the details go to the server log only. */
  private async failUnexpectedly(runId: string, error: unknown): Promise<void> {
    log.error("a run failed unexpectedly", { runId, err: error });
    const failure = { code: "internal-error" as const, message: "the run failed unexpectedly; the details are in the server log" };
    await this.notifying(runId)
      .commit(runId, this.id, async () => ({ events: [{ type: "run-failed", data: { failure } }], patch: { status: "failed", finishedAt: this.env.now(), failure } }))
      .catch(() => {});
  }

  private committed(runId: string, lastSeq?: number): void {
    this.hooks.committed?.(runId, lastSeq);
  }

  /** The store, announcing each commit of this run (with its last sequence number and its events) to the hooks. */
  private notifying(runId: string): KernelStore {
    const store = this.store;
    const journaled = this.hooks.journaled;
    // What a plan answered, so that its events can be told once they are committed.
    const recording = <P extends CommitPlan | ((tx: KernelTx) => Promise<CommitPlan>)>(plan: P, seen: { events: readonly NewEvent[] }): P => {
      if (!journaled) return plan;
      if (typeof plan !== "function") {
        seen.events = plan.events;
        return plan;
      }
      return (async (tx: KernelTx) => {
        const planned = await plan(tx);
        seen.events = planned.events;
        return planned;
      }) as P;
    };
    const tell = (events: readonly NewEvent[], at: Date, row?: unknown) => {
      try {
        journaled?.(runId, events, at, row);
      } catch {
        // A hook's failure never touches the run.
      }
    };
    return {
      ...store,
      commit: async (id, owner, plan) => {
        const seen = { events: [] as readonly NewEvent[] };
        const seqs = await store.commit(id, owner, recording(plan, seen));
        if (seqs) {
          this.committed(runId, seqs.at(-1));
          tell(seen.events, new Date());
        }
        return seqs;
      },
      append: async (id, owner, plan) => {
        const seen = { events: [] as readonly NewEvent[] };
        const written = await store.append(id, owner, recording(plan, seen));
        if (written) {
          this.committed(runId, written.seqs.at(-1));
          tell(seen.events, written.createdAt, written.row);
        }
        return written;
      },
    };
  }
}
