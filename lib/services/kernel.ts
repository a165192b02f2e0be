/**
 * The process's one kernel worker, on the product database. Kept on `globalThis` because Next bundles the
 * instrumentation hook and the route handlers separately: both must see the same worker.
 */
import { databaseConfig } from "@/lib/db/config";
import { dbKernelEnvironment } from "@/lib/services/kernel-environment";
import { dbKernelStore } from "@/lib/services/kernel-store";
import { KernelWorker, workerOptionsFromEnv } from "@/lib/kernel/worker";
import { dbApprovalGateway } from "@/lib/services/approvals";
import { eventBus } from "@/lib/services/event-bus";
import { trackDeltas } from "@/lib/services/live-deltas";
import { observeTurn } from "@/lib/services/metrics";
import { traceJournaled, withRunTrace } from "@/lib/services/tracing";
import { log } from "@/lib/log";

/**
 * Tells every stream and waiting request, on every replica, that the run's journal grew (after the commit), up to
 * `lastSeq` when the caller knows it (a stream then reads exactly what was written before the deltas heard after).
 */
export function announceRun(runId: string, lastSeq?: number): void {
  eventBus().publish(`run:${runId}`, lastSeq === undefined ? {} : { lastSeq });
}

const holder = globalThis as unknown as { kindgiKernel?: KernelWorker };

/** The worker of this process (created on first use; `startKernel` also makes it poll). */
export function getKernel(): KernelWorker {
  // The approval gate and pauses are on in the product; the turn loop's own tests run without them.
  // Each execution's end is logged (with the run's id and tenant from the worker's log context); each is traced.
  holder.kindgiKernel ??= new KernelWorker(dbKernelStore, { ...dbKernelEnvironment, approvals: dbApprovalGateway }, workerOptionsFromEnv(), {
    committed: announceRun,
    executed: executionEnded,
    journaled: traceJournaled,
    around: withRunTrace,
  });
  return holder.kindgiKernel;
}

/** An execution of a run ended: `settled` (completed, failed or waiting for an approval) or `stopped` (lease lost, cancelled). */
function executionEnded(_runId: string, ms: number, outcome: "settled" | "stopped"): void {
  observeTurn(ms / 1000, outcome);
  log.debug("a run's execution ended", { outcome, ms: Math.round(ms) });
}

/**
 * Starts resuming runs. With the embedded database this process is its only user (the data-folder lock says
 * so), so leases left by a previous process are freed at once instead of waiting for them to expire.
 */
export async function startKernel(): Promise<void> {
  // Every process keeps the text so far of the model calls in flight on any replica, for clients joining mid-call.
  trackDeltas();
  await getKernel().start({ freeForeignLeases: databaseConfig().kind === "pglite" });
}
