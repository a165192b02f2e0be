/**
 * The kernel's storage, behind one narrow interface: runs are claimed with a lease, and every journal append
 * happens in one transaction with the run-row change it implies — and only while the writer still holds the lease
 * and the run is not finished. A worker that lost its lease (it stalled, or the run was cancelled) can no longer
 * write: its next commit answers false and it stops.
 */
import type { Prisma } from "@/lib/generated/prisma/client";
import { getDb, type DbTx } from "@/lib/db";
import type { JournalEvent, NewEvent, RunStatus } from "@/lib/kernel/types";

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

export interface KernelStore {
  loadRun(runId: string): Promise<KernelRun | null>;
  loadEvents(runId: string, afterSeq?: number, limit?: number): Promise<JournalEvent[]>;
  /**
   * Runs `plan` in a transaction (it may write through `tx`, e.g. a native tool's memory write) and appends the
   * events it returns with its patch — all or nothing, and only while `owner` holds the run's lease and the run is
   * not finished. Answers null when the lease is lost (nothing is written), else the events' sequence numbers.
   */
  commit(runId: string, owner: string, plan: (tx: DbTx) => Promise<CommitPlan>): Promise<number[] | null>;
  /** Leases up to `limit` runnable runs whose lease is free or expired, oldest first. */
  claim(owner: string, leaseMs: number, limit: number): Promise<{ id: string; previousOwner: string | null }[]>;
  /** Extends the lease; false when `owner` no longer holds it or the run is finished. */
  renewLease(runId: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Gives the lease up (the run stays as it is, for another worker or a later resume). */
  releaseLease(runId: string, owner: string): Promise<void>;
  /** Frees every lease not held by `owner` (embedded mode at start: no other process can hold one). */
  freeForeignLeases(owner: string): Promise<number>;
}

const FINISHED: RunStatus[] = ["completed", "failed", "cancelled"];

/** Thrown inside a commit's transaction to roll it back when the lease is not held. */
class LeaseNotHeld extends Error {}

function patchData(patch: RunPatch | undefined, lastSeqIncrement: number): Prisma.RunUpdateManyMutationInput {
  const data: Prisma.RunUpdateManyMutationInput = { lastSeq: { increment: lastSeqIncrement } };
  if (!patch) return data;
  if (patch.status) data.status = patch.status;
  if (patch.startedAt) data.startedAt = patch.startedAt;
  if (patch.finishedAt) data.finishedAt = patch.finishedAt;
  if (patch.resolvedTools !== undefined) data.resolvedTools = patch.resolvedTools as Prisma.InputJsonValue;
  if (patch.providerId) data.providerId = patch.providerId;
  if (patch.model) data.model = patch.model;
  if (patch.addUsage) {
    data.inputTokens = { increment: patch.addUsage.inputTokens };
    data.outputTokens = { increment: patch.addUsage.outputTokens };
    data.costUsd = { increment: patch.addUsage.costUsd };
    data.modelCalls = { increment: patch.addUsage.modelCalls };
  }
  if (patch.addToolCalls) data.toolCalls = { increment: patch.addToolCalls };
  if (patch.output !== undefined) data.output = patch.output as Prisma.InputJsonValue;
  if (patch.failure !== undefined) data.failure = patch.failure as Prisma.InputJsonValue;
  if (patch.flags !== undefined) data.flags = patch.flags as Prisma.InputJsonValue;
  if (patch.retrievedFacts !== undefined) data.retrievedFacts = patch.retrievedFacts as Prisma.InputJsonValue;
  // A finished run, and a suspended one (it waits for a person or another system), hold no lease.
  if (patch.status && (FINISHED.includes(patch.status) || patch.status === "suspended")) {
    data.leaseOwner = null;
    data.leaseExpiresAt = null;
  }
  return data;
}

const toEvent = (row: { seq: number; type: string; data: unknown; createdAt: Date }): JournalEvent =>
  ({ seq: row.seq, type: row.type, data: row.data, createdAt: row.createdAt.toISOString() }) as JournalEvent;

/** The store on the product database (PGlite or PostgreSQL). */
export const dbKernelStore: KernelStore = {
  async loadRun(runId) {
    const db = await getDb();
    return db.run.findUnique({
      where: { id: runId },
      select: { id: true, tenantId: true, projectId: true, agentId: true, agentVersion: true, conversationId: true, status: true, createdBy: true, attended: true, startedAt: true, leaseOwner: true, lastSeq: true },
    });
  },

  async loadEvents(runId, afterSeq = 0, limit) {
    const db = await getDb();
    const rows = await db.runEvent.findMany({ where: { runId, seq: { gt: afterSeq } }, orderBy: { seq: "asc" }, ...(limit ? { take: limit } : {}) });
    return rows.map(toEvent);
  },

  async commit(runId, owner, plan) {
    const db = await getDb();
    try {
      return await db.$transaction(async (tx) => {
        const { events, patch, effects } = await plan(tx);
        // One statement checks the lease, applies the patch and numbers the events; its row lock queues concurrent
        // commits of the run (parallel tool calls). Without the lease it throws, which rolls back the plan's writes.
        const run = await tx.run
          .update({ where: { id: runId, leaseOwner: owner, status: { notIn: FINISHED } }, data: patchData(patch, events.length), select: { lastSeq: true, tenantId: true } })
          .catch((error: unknown) => {
            throw (error as { code?: string }).code === "P2025" ? new LeaseNotHeld() : error;
          });
        const first = run.lastSeq - events.length + 1;
        const seqs = events.map((_, i) => first + i);
        if (events.length) {
          await tx.runEvent.createMany({ data: events.map((event, i) => ({ tenantId: run.tenantId, runId, seq: seqs[i], type: event.type, data: event.data as Prisma.InputJsonValue })) });
        }
        if (effects?.conversation) await appendConversationMessages(tx, run.tenantId, effects.conversation);
        return seqs;
      });
    } catch (error) {
      if (error instanceof LeaseNotHeld) return null;
      throw error;
    }
  },

  async claim(owner, leaseMs, limit) {
    const db = await getDb();
    const rows = await db.$queryRaw<{ id: string; previous: string | null }[]>`
      WITH picked AS (
        SELECT id, "leaseOwner" AS previous FROM "Run"
        WHERE status IN ('pending', 'running') AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now())
        ORDER BY "createdAt" LIMIT ${limit}::integer
        FOR UPDATE SKIP LOCKED
      )
      UPDATE "Run" r SET "leaseOwner" = ${owner}, "leaseExpiresAt" = now() + make_interval(secs => ${leaseMs / 1000}::double precision)
      FROM picked WHERE r.id = picked.id
      RETURNING r.id::text AS id, picked.previous AS previous`;
    return rows.map((row) => ({ id: row.id, previousOwner: row.previous }));
  },

  async renewLease(runId, owner, leaseMs) {
    const db = await getDb();
    const count = await db.$executeRaw`
      UPDATE "Run" SET "leaseExpiresAt" = now() + make_interval(secs => ${leaseMs / 1000}::double precision)
      WHERE id = ${runId}::uuid AND "leaseOwner" = ${owner} AND status NOT IN ('completed', 'failed', 'cancelled')`;
    return count > 0;
  },

  async releaseLease(runId, owner) {
    const db = await getDb();
    await db.run.updateMany({ where: { id: runId, leaseOwner: owner }, data: { leaseOwner: null, leaseExpiresAt: null } });
  },

  async freeForeignLeases(owner) {
    const db = await getDb();
    const result = await db.run.updateMany({ where: { status: { in: ["pending", "running"] }, leaseOwner: { not: owner } }, data: { leaseExpiresAt: null } });
    return result.count;
  },
};

/** Appends messages to a conversation, numbered after its last one, and marks it active now. */
export async function appendConversationMessages(tx: DbTx, tenantId: string, input: NonNullable<CommitEffects["conversation"]>): Promise<void> {
  const conversation = await tx.conversation.update({
    where: { id: input.id },
    data: { messageCount: { increment: input.messages.length }, lastActivityAt: new Date() },
    select: { messageCount: true },
  });
  const first = conversation.messageCount - input.messages.length + 1;
  await tx.conversationMessage.createMany({
    data: input.messages.map((message, i) => ({ tenantId, conversationId: input.id, seq: first + i, role: message.role, content: message.content, runId: input.runId })),
  });
}
