/**
 * The kernel's storage port, behind one narrow interface: runs are claimed with a lease, and every journal append
 * happens in one atomic write with the run-row change it implies — and only while the writer still holds the lease
 * and the run is not finished. A worker that lost its lease (it stalled, or the run was cancelled) can no longer
 * write: its next commit answers null and it stops. The adapter on the product database is
 * lib/services/kernel-store.ts; lib/kernel/testing/memory-store.ts keeps the same contract in memory.
 */
import type { JournalEvent, NewEvent, RunStatus } from "@/lib/kernel/types";

/**
 * The transaction a commit's plan receives: opaque to the kernel, the adapter's own (a native tool's write, an
 * approval row, lands in it). Only the environment that belongs to the same adapter looks inside.
 */
export type KernelTx = { readonly __kernelTransaction?: never };

/** The run-row summary a commit may change alongside its events. */
export type RunPatch = {
  status?: RunStatus;
  startedAt?: Date;
  finishedAt?: Date;
  resolvedTools?: unknown;
  providerId?: string;
  model?: string;
  addUsage?: { inputTokens: number; outputTokens: number; costUsd: number; modelCalls: number };
  addToolCalls?: number;
  output?: unknown;
  failure?: unknown;
  flags?: unknown;
  retrievedFacts?: unknown;
};

/** What a commit writes beyond the run: the turn's messages appended to its conversation (on completion). */
export type CommitEffects = { conversation?: { id: string; runId: string; messages: { role: "user" | "assistant"; content: string }[] } };

export type CommitPlan = { events: NewEvent[]; patch?: RunPatch; effects?: CommitEffects };

/** A status after which a run holds no lease: finished, or waiting on something outside the kernel. */
export const releasesLease = (status: string | undefined): boolean => status === "completed" || status === "failed" || status === "cancelled" || status === "suspended";

/** The run row as the kernel reads it. */
export type KernelRun = {
  id: string;
  tenantId: string;
  projectId: string;
  /** Null for a tool invocation. */
  agentId: string | null;
  agentVersion: string | null;
  conversationId: string | null;
  status: string;
  createdBy: string;
  attended: boolean;
  startedAt: Date | null;
  leaseOwner: string | null;
  lastSeq: number;
};

/**
 * What one commit wrote: the events' sequence numbers, when they were written, and the run's columns it wrote, as the
 * adapter has them (opaque to the kernel, which lays them over the row it keeps: a caller that created the run answers
 * from that row without a re-read).
 */
export type Committed = { seqs: number[]; createdAt: Date; row: unknown };

export interface KernelStore {
  loadRun(runId: string): Promise<KernelRun | null>;
  loadEvents(runId: string, afterSeq?: number, limit?: number): Promise<JournalEvent[]>;
  /**
   * Runs `plan` in a transaction (it may write through `tx`, e.g. a native tool's memory write) and appends the
   * events it returns with its patch — all or nothing, and only while `owner` holds the run's lease and the run is
   * not finished. Answers null when the lease is lost (nothing is written), else the events' sequence numbers.
   */
  commit(runId: string, owner: string, plan: (tx: KernelTx) => Promise<CommitPlan>): Promise<number[] | null>;
  /**
   * The same guarantee as `commit`, answering what was written. A plan given as a value (it writes nothing through
   * a transaction) is one statement: the guarded run update and the event inserts together.
   */
  append(runId: string, owner: string, plan: CommitPlan | ((tx: KernelTx) => Promise<CommitPlan>)): Promise<Committed | null>;
  /** Leases up to `limit` runnable runs whose lease is free or expired, oldest first. */
  claim(owner: string, leaseMs: number, limit: number): Promise<{ id: string; previousOwner: string | null }[]>;
  /** Extends the lease; false when `owner` no longer holds it or the run is finished. */
  renewLease(runId: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Gives the lease up (the run stays as it is, for another worker or a later resume). */
  releaseLease(runId: string, owner: string): Promise<void>;
  /** Frees every lease not held by `owner` (embedded mode at start: no other process can hold one). */
  freeForeignLeases(owner: string): Promise<number>;
}
