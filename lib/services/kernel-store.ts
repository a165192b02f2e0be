/**
 * The kernel's store (lib/kernel/store.ts) on the product database (PGlite or PostgreSQL). The hot path is raw SQL
 * straight on the driver under the Prisma client (`getRawQuery` in lib/db.ts: the same pg pool or PGlite instance),
 * one statement per commit: a CTE updates the run — guarded by the lease owner and
 * "not finished", which is the proof the writer still holds the run — and inserts the commit's events numbered from
 * the updated `lastSeq`, returning the columns the update computed. Its statement text never changes, so it is prepared once: per
 * connection on PostgreSQL, once per process on PGlite (see `statementName` and `pgliteRawQuery` in lib/db.ts). A plan that writes through the transaction (a native tool's
 * write) or appends to a conversation runs in an interactive Prisma transaction whose last statement is the same CTE.
 * Everything else (claim, leases, reads) is everyday data access.
 */
import { afterTransaction, getDb, getRawQuery, type DbTx } from "@/lib/db";
import type { Run } from "@/lib/generated/prisma/client";
import type { CommitEffects, CommitPlan, Committed, KernelStore, KernelTx, RunPatch } from "@/lib/kernel/store";
import type { JournalEvent, NewEvent } from "@/lib/kernel/types";
import { countRunEnded, countRunStarted } from "@/lib/services/metrics";
import { newRunTrace, rememberRun, traceRunEnded, type RunTrace } from "@/lib/services/tracing";

/** Marks the kernel's statements: lib/db.ts gives each a prepared-statement name on PostgreSQL. */
export const KERNEL_SQL_MARKER = "/* kindgi:kernel ";

const LEASE_FREEING = `('completed', 'failed', 'cancelled', 'suspended')`;

/**
 * The columns a commit answers: those its update computes. The JSON columns it sets are the patch's own values, which
 * the store adds without reading them back (see `committed`); the rest of the row is what the kernel keeps already.
 */
const APPEND_RETURNS = `"origin"->>'kind' AS "originKind", "id", "tenantId", "status", "lastSeq", "startedAt", "finishedAt", "providerId", "model", "inputTokens", "outputTokens", "costUsd", "modelCalls", "toolCalls", "leaseOwner", "leaseExpiresAt"`;

/**
 * One commit: the guarded run update and the event inserts. Parameters: see `appendParams`. No row comes back when
 * the writer does not hold the lease or the run is finished, and then nothing is written.
 */
export const APPEND_SQL = `${KERNEL_SQL_MARKER}append */
WITH r AS (
  UPDATE "Run" SET
    "lastSeq" = "lastSeq" + $3::int,
    "status" = COALESCE($4::text, "status"),
    "startedAt" = COALESCE($5::timestamptz, "startedAt"),
    "finishedAt" = COALESCE($6::timestamptz, "finishedAt"),
    "resolvedTools" = COALESCE($7::jsonb, "resolvedTools"),
    "providerId" = COALESCE($8::text, "providerId"),
    "model" = COALESCE($9::text, "model"),
    "inputTokens" = "inputTokens" + $10::int,
    "outputTokens" = "outputTokens" + $11::int,
    "costUsd" = "costUsd" + $12::float8,
    "modelCalls" = "modelCalls" + $13::int,
    "toolCalls" = "toolCalls" + $14::int,
    "output" = CASE WHEN $15::text IS NULL THEN "output" ELSE $15::jsonb END,
    "failure" = COALESCE($16::jsonb, "failure"),
    "flags" = COALESCE($17::jsonb, "flags"),
    "retrievedFacts" = COALESCE($18::jsonb, "retrievedFacts"),
    "leaseOwner" = CASE WHEN $4::text IN ${LEASE_FREEING} THEN NULL ELSE "leaseOwner" END,
    "leaseExpiresAt" = CASE WHEN $4::text IN ${LEASE_FREEING} THEN NULL ELSE "leaseExpiresAt" END
  WHERE "id" = $1::uuid AND "leaseOwner" = $2::text AND "status" NOT IN ('completed', 'failed', 'cancelled')
  RETURNING ${APPEND_RETURNS}
), e AS (
  INSERT INTO "RunEvent" ("tenantId", "runId", "seq", "type", "data", "createdAt")
  SELECT r."tenantId", r."id", r."lastSeq" - $3::int + x.ord::int, x.ev->>'type', x.ev->'data', now()
  FROM r CROSS JOIN LATERAL jsonb_array_elements($19::jsonb) WITH ORDINALITY AS x(ev, ord)
)
SELECT r.*, now() AS "committedAt" FROM r`;

/**
 * A new run with its first events (run-created, and the turn's start when it was prepared with the run), leased
 * to its creator, touching its conversation: one statement. Parameters: see `createRunParams`.
 */
export const CREATE_RUN_SQL = `${KERNEL_SQL_MARKER}create-run */
WITH r AS (
  INSERT INTO "Run" ("id", "tenantId", "projectId", "kind", "agentId", "agentVersion", "toolId", "toolVersion", "conversationId", "status",
    "attended", "origin", "toolsAllowedUnattended", "createdBy", "userMessage", "parameters", "arguments", "resolvedTools", "providerId", "model",
    "failure", "retrievedFacts", "lastSeq", "leaseOwner", "leaseExpiresAt", "startedAt", "finishedAt", "costUsd", "traceContext")
  VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, $7::text, $8::text, $9::uuid, $10::text,
    $11::boolean, $12::jsonb, ARRAY(SELECT jsonb_array_elements_text($13::jsonb)), $14::uuid, $15::text, $16::jsonb, $17::jsonb, $18::jsonb, $19::text, $20::text,
    $21::jsonb, COALESCE($22::jsonb, '[]'::jsonb), jsonb_array_length($23::jsonb), $24::text,
    CASE WHEN $24::text IS NULL THEN NULL ELSE now() + make_interval(secs => $25::float8) END, $26::timestamptz, $27::timestamptz, $28::float8, $29::jsonb)
  RETURNING "id", "tenantId", "createdAt", "leaseExpiresAt"
), e AS (
  INSERT INTO "RunEvent" ("tenantId", "runId", "seq", "type", "data", "createdAt")
  SELECT r."tenantId", r."id", x.ord::int, x.ev->>'type', x.ev->'data', r."createdAt"
  FROM r CROSS JOIN LATERAL jsonb_array_elements($23::jsonb) WITH ORDINALITY AS x(ev, ord)
), c AS (
  UPDATE "Conversation" SET "lastActivityAt" = now() WHERE $9::uuid IS NOT NULL AND "id" = $9::uuid
)
SELECT r."createdAt", r."leaseExpiresAt" FROM r`;

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
const iso = (date: Date | undefined | null): string | null => (date ? date.toISOString() : null);

/** The parameters of APPEND_SQL for one commit. */
export function appendParams(runId: string, owner: string, events: readonly NewEvent[], patch: RunPatch = {}): unknown[] {
  const usage = patch.addUsage;
  return [
    runId,
    owner,
    events.length,
    patch.status ?? null,
    iso(patch.startedAt),
    iso(patch.finishedAt),
    json(patch.resolvedTools),
    patch.providerId ?? null,
    patch.model ?? null,
    usage?.inputTokens ?? 0,
    usage?.outputTokens ?? 0,
    usage?.costUsd ?? 0,
    usage?.modelCalls ?? 0,
    patch.addToolCalls ?? 0,
    json(patch.output),
    json(patch.failure),
    json(patch.flags),
    json(patch.retrievedFacts),
    JSON.stringify(events.map((event) => ({ type: event.type, data: event.data }))),
  ];
}

/** A run as CREATE_RUN_SQL writes it. */
export type NewRun = {
  id: string;
  tenantId: string;
  projectId: string;
  kind: "agent-turn" | "tool-invocation";
  agentId?: string | null;
  agentVersion?: string | null;
  toolId?: string | null;
  toolVersion?: string | null;
  conversationId: string | null;
  attended: boolean;
  origin: unknown;
  toolsAllowedUnattended: readonly string[];
  createdBy: string;
  userMessage?: string | null;
  parameters?: unknown;
  arguments?: unknown;
  /** The first events, numbered from 1 (run-created first). */
  events: readonly NewEvent[];
  /** What the first events changed (the turn's start); its status defaults to pending. */
  patch?: RunPatch;
  /** The creator's worker and lease; null leaves the run to any worker's poll (and a finished run holds none). */
  lease: { owner: string; ms: number } | null;
  /** The run's trace (lib/services/tracing.ts), when traces are exported. */
  trace?: RunTrace | null;
};

/** What a new run starts as: its status, and its lease (none when it is written finished). */
function startOf(run: NewRun) {
  const patch = run.patch ?? {};
  const status = patch.status ?? "pending";
  return { patch, status, lease: status === "completed" || status === "failed" || status === "cancelled" ? null : run.lease };
}

/** The parameters of CREATE_RUN_SQL. */
export function createRunParams(run: NewRun): unknown[] {
  const { patch, status, lease } = startOf(run);
  return [
    run.id,
    run.tenantId,
    run.projectId,
    run.kind,
    run.agentId ?? null,
    run.agentVersion ?? null,
    run.toolId ?? null,
    run.toolVersion ?? null,
    run.conversationId,
    status,
    run.attended,
    json(run.origin),
    JSON.stringify(run.toolsAllowedUnattended),
    run.createdBy,
    run.userMessage ?? null,
    json(run.parameters),
    json(run.arguments),
    json(patch.resolvedTools),
    patch.providerId ?? null,
    patch.model ?? null,
    json(patch.failure),
    json(patch.retrievedFacts),
    JSON.stringify(run.events.map((event) => ({ type: event.type, data: event.data }))),
    lease?.owner ?? null,
    lease ? lease.ms / 1000 : 0,
    iso(patch.startedAt),
    iso(patch.finishedAt),
    // What the turn's start cost (embedding its retrieval query); model calls come later.
    patch.addUsage?.costUsd ?? 0,
    json(run.trace ?? undefined),
  ];
}

/**
 * Writes a new run and its first events in one statement; answers the run row: what was written, with the two columns
 * the database computes (its creation time and the lease's expiry) as the statement answered them.
 */
export async function insertRun(newRun: NewRun, db?: DbTx): Promise<Run> {
  // The trace of the request that creates it, when traces are exported.
  const run = newRun.trace === undefined ? { ...newRun, trace: newRunTrace(newRun.kind) } : newRun;
  type Computed = { createdAt: Date; leaseExpiresAt: Date | null };
  const [computed] = db ? await db.$queryRawUnsafe<Computed[]>(CREATE_RUN_SQL, ...createRunParams(run)) : await (await getRawQuery())<Computed>(CREATE_RUN_SQL, createRunParams(run));
  const { patch, status, lease } = startOf(run);
  // Counted once the run is written for good (a run created inside a transaction: once that commits); a run written
  // finished has its trace's spans then.
  if (run.trace) rememberRun(run.id, { trace: run.trace, createdAt: new Date(computed.createdAt), kind: run.kind, agentId: run.agentId ?? null, agentVersion: run.agentVersion ?? null, toolId: run.toolId ?? null, toolVersion: run.toolVersion ?? null, origin: run.origin, conversationId: run.conversationId });
  const written = () => {
    countRunStarted(run.origin, status);
    if (run.trace && (status === "completed" || status === "failed" || status === "cancelled")) traceRunEnded(run.id);
  };
  if (db) afterTransaction(db, written);
  else written();
  return {
    id: run.id,
    tenantId: run.tenantId,
    projectId: run.projectId,
    kind: run.kind,
    agentId: run.agentId ?? null,
    agentVersion: run.agentVersion ?? null,
    toolId: run.toolId ?? null,
    toolVersion: run.toolVersion ?? null,
    conversationId: run.conversationId,
    status,
    attended: run.attended,
    origin: (run.origin ?? null) as Run["origin"],
    toolsAllowedUnattended: [...run.toolsAllowedUnattended],
    createdBy: run.createdBy,
    userMessage: run.userMessage ?? null,
    parameters: (run.parameters ?? null) as Run["parameters"],
    arguments: (run.arguments ?? null) as Run["arguments"],
    resolvedTools: (patch.resolvedTools ?? null) as Run["resolvedTools"],
    providerId: patch.providerId ?? null,
    model: patch.model ?? null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: patch.addUsage?.costUsd ?? 0,
    modelCalls: 0,
    toolCalls: 0,
    output: null,
    failure: (patch.failure ?? null) as Run["failure"],
    flags: [],
    retrievedFacts: (patch.retrievedFacts ?? []) as Run["retrievedFacts"],
    lastSeq: run.events.length,
    leaseOwner: lease?.owner ?? null,
    leaseExpiresAt: computed.leaseExpiresAt === null ? null : new Date(computed.leaseExpiresAt),
    createdAt: new Date(computed.createdAt),
    traceContext: (run.trace ?? null) as Run["traceContext"],
    startedAt: patch.startedAt ?? null,
    finishedAt: patch.finishedAt ?? null,
  };
}

/** Thrown inside a commit's transaction to roll it back when the lease is not held. */
class LeaseNotHeld extends Error {}

type CommittedRow = { originKind: string | null } & Pick<Run, "id" | "tenantId" | "status" | "lastSeq" | "startedAt" | "finishedAt" | "providerId" | "model" | "inputTokens" | "outputTokens" | "costUsd" | "modelCalls" | "toolCalls" | "leaseOwner" | "leaseExpiresAt"> & { committedAt: Date };
const PATCHED_JSON_COLUMNS = ["resolvedTools", "output", "failure", "flags", "retrievedFacts"] as const;

/** What a commit wrote: the computed columns as answered, with the JSON columns its patch set. */
function committed(row: CommittedRow, count: number, patch: RunPatch = {}): Committed {
  const { committedAt, originKind: _originKind, ...run } = row;
  const written: Partial<Run> = run;
  for (const column of PATCHED_JSON_COLUMNS) if (patch[column] !== undefined) (written as Record<string, unknown>)[column] = patch[column];
  const first = run.lastSeq - count + 1;
  return { seqs: Array.from({ length: count }, (_, i) => first + i), createdAt: committedAt, row: written };
}

const toEvent = (row: { seq: number; type: string; data: unknown; createdAt: Date }): JournalEvent =>
  ({ seq: row.seq, type: row.type, data: row.data, createdAt: row.createdAt.toISOString() }) as JournalEvent;

async function append(runId: string, owner: string, plan: CommitPlan | ((tx: KernelTx) => Promise<CommitPlan>)): Promise<Committed | null> {
  if (typeof plan !== "function" && !plan.effects?.conversation) {
    // One statement, its own transaction: straight on the driver.
    const query = await getRawQuery();
    const [row] = await query<CommittedRow>(APPEND_SQL, appendParams(runId, owner, plan.events, plan.patch));
    if (row) countRunEnded(row.originKind ?? "unknown", plan.patch?.status);
    return row ? committed(row, plan.events.length, plan.patch) : null;
  }
  const db = await getDb();
  let ended: { origin: string; status: string | undefined } | null = null;
  try {
    const written = await db.$transaction(async (tx) => {
      const { events, patch, effects } = typeof plan === "function" ? await plan(tx as unknown as KernelTx) : plan;
      // The statement checks the lease, applies the patch and numbers the events; its row lock queues concurrent
      // commits of the run (parallel tool calls). Without the lease it throws, which rolls back the plan's writes.
      const [row] = await tx.$queryRawUnsafe<CommittedRow[]>(APPEND_SQL, ...appendParams(runId, owner, events, patch));
      if (!row) throw new LeaseNotHeld();
      if (effects?.conversation) await appendConversationMessages(tx, row.tenantId, effects.conversation);
      ended = { origin: row.originKind ?? "unknown", status: patch?.status };
      return committed(row, events.length, patch);
    });
    // The one place a run's end is written (the kernel's commit): counted once it has committed.
    if (ended) countRunEnded((ended as { origin: string }).origin, (ended as { status: string | undefined }).status);
    return written;
  } catch (error) {
    if (error instanceof LeaseNotHeld) return null;
    throw error;
  }
}

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
    return (await append(runId, owner, plan))?.seqs ?? null;
  },

  append,

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
