/**
 * The process's one kernel worker, on the product database. Kept on `globalThis` because Next bundles the
 * instrumentation hook and the route handlers separately: both must see the same worker.
 */
import { databaseConfig } from "@/lib/db/config";
import { dbKernelEnvironment } from "@/lib/services/kernel-environment";
import { dbKernelStore } from "@/lib/services/kernel-store";
import { KernelWorker, workerOptionsFromEnv } from "@/lib/kernel/worker";

const holder = globalThis as unknown as { kindgiKernel?: KernelWorker };

/** The worker of this process (created on first use; `startKernel` also makes it poll). */
export function getKernel(): KernelWorker {
  holder.kindgiKernel ??= new KernelWorker(dbKernelStore, dbKernelEnvironment, workerOptionsFromEnv());
  return holder.kindgiKernel;
}

/**
 * Starts resuming runs. With the embedded database this process is its only user (the data-folder lock says
 * so), so leases left by a previous process are freed at once instead of waiting for them to expire.
 */
export async function startKernel(): Promise<void> {
  await getKernel().start({ freeForeignLeases: databaseConfig().kind === "pglite" });
}
