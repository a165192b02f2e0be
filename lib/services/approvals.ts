/**
 * Approvals: a person's yes or no a run waits for (a tool call the gate stopped, or a conversation's next turn),
 * remembered grants, the inbox's feed, and paused calls' wait tokens.
 *
 * The kernel's gate (lib/kernel/turn.ts) writes an approval in the commit that journals `approval-requested`
 * (`createApprovalInTx`); the run is then suspended and holds no lease. A decision (`completeApproval`) is one
 * guarded UPDATE … WHERE status = 'pending' (two reviewers at once: one decision), and in the same transaction puts
 * the run back to `running` leased to this process's worker, which executes it at once — no poll on the path. The
 * kernel re-checks the approval against the journaled hash of the arguments before it runs anything.
 */
import { enqueueNotification } from "@/lib/services/notifications";
import type { KernelTx } from "@/lib/kernel/store";
import { timingSafeEqual } from "node:crypto";
import { sha256Hex } from "@/lib/hash";
import type { Approval, ApprovalGrant, Prisma, ToolWait } from "@/lib/generated/prisma/client";
import { afterTransaction, getDb, type DbTx } from "@/lib/db";
import { eventBus, wakeups } from "@/lib/services/event-bus";
import { AppError, notFound, type Issue } from "@/lib/errors";
import { type Page, toPage } from "@/lib/pagination";
import { type Actor, projectFilter, requireDecider, requireWrite } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { announceRun, getKernel } from "@/lib/services/kernel";
import type { RunOrigin } from "@/lib/services/run-origin";
import { getValidator } from "@/lib/tools/json-schema";
import { getBuiltinTool, isBuiltinToolId } from "@/lib/tools/native";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { approvalTtlMs, expiredApprovalAction, MAX_WAIT_MS, type ApprovalExpiryAction } from "@/lib/kernel/approval-policy";
import type { ApprovalGateway, ApprovalRecord, ApprovalRequest, WaitRecord } from "@/lib/kernel/environment";
import { isTerminalStatus } from "@/lib/kernel/types";
import { traceRunEnded } from "@/lib/services/tracing";
import { log } from "@/lib/log";

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "withdrawn", "expired"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export type ApprovalView = {
  id: string;
  kind: "tool-call" | "session";
  status: ApprovalStatus;
  projectId: string;
  runId: string;
  callId: string;
  agent: { id: string; version: string } | null;
  conversationId: string | null;
  tool: { id: string; version: string } | null;
  reason: string;
  effects: unknown[];
  arguments: unknown;
  argumentsHash: string | null;
  editedArguments: unknown;
  startedBy: string;
  origin: RunOrigin | null;
  requestedAt: string;
  expiresAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  rationale: string | null;
  grantId: string | null;
  onExpired: ApprovalExpiryAction;
};

/** What an approval's expiry does, as it was fixed when the approval was asked. */
const expiryOf = (row: Pick<Approval, "onExpired">): ApprovalExpiryAction => (row.onExpired === "fail" ? "fail" : "reject");

export function approvalView(row: Approval): ApprovalView {
  return {
    id: row.id,
    kind: row.kind === "session" ? "session" : "tool-call",
    status: row.status as ApprovalStatus,
    projectId: row.projectId,
    runId: row.runId,
    callId: row.callId,
    agent: row.agentId && row.agentVersion ? { id: row.agentId, version: row.agentVersion } : null,
    conversationId: row.conversationId,
    tool: row.toolId && row.toolVersion ? { id: row.toolId, version: row.toolVersion } : null,
    reason: row.reason,
    effects: (row.effects as unknown[]) ?? [],
    arguments: row.arguments ?? null,
    argumentsHash: row.argumentsHash,
    editedArguments: row.editedArguments ?? null,
    startedBy: row.startedBy,
    origin: (row.origin as RunOrigin | null) ?? null,
    requestedAt: row.requestedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    rationale: row.rationale,
    grantId: row.grantId,
    onExpired: expiryOf(row),
  };
}

export type GrantView = {
  id: string;
  projectId: string;
  agentId: string;
  toolId: string;
  condition: unknown;
  approvalId: string | null;
  createdBy: string;
  createdAt: string;
  revokedAt: string | null;
  revokedBy: string | null;
};

export function grantView(row: ApprovalGrant): GrantView {
  return {
    id: row.id,
    projectId: row.projectId,
    agentId: row.agentId,
    toolId: row.toolId,
    condition: row.condition ?? null,
    approvalId: row.approvalId,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    revokedBy: row.revokedBy,
  };
}

// ---- the inbox's feed ----

/** The event bus topic that wakes a tenant's inbox streams, on every replica: the feed grew. */
export const approvalsTopic = (tenantId: string) => `approvals:${tenantId}`;

/**
 * How often an inbox stream reads the feed when nothing woke it: only a notification lost on the way (the bus tells
 * its subscribers of a dropped connection, and they read at once) is this late.
 */
export const APPROVAL_SAFETY_POLL_MS = 5000;

async function appendApprovalEvent(tx: DbTx, row: { tenantId: string; projectId: string; id: string }, type: "approval.requested" | "approval.decided"): Promise<void> {
  // The counter row's lock orders the tenant's feed: seq order is commit order, so a resumed stream misses nothing.
  const [counter] = await tx.$queryRaw<{ lastSeq: number }[]>`
    INSERT INTO "ApprovalEventCounter" ("tenantId", "lastSeq") VALUES (${row.tenantId}::uuid, 1)
    ON CONFLICT ("tenantId") DO UPDATE SET "lastSeq" = "ApprovalEventCounter"."lastSeq" + 1
    RETURNING "lastSeq"`;
  await tx.approvalEvent.create({ data: { tenantId: row.tenantId, seq: counter.lastSeq, type, approvalId: row.id, projectId: row.projectId } });
}

/** Wakes the tenant's inbox streams on every replica; called once what they read has committed. */
function wakeFeed(tenantId: string): void {
  eventBus().publish(approvalsTopic(tenantId), {});
}

/**
 * The one place an approval is created, inside the kernel's commit transaction (with its `approval-requested`
 * journal event). Outgoing notifications of `approval.requested` belong here, in the same transaction.
 */
export async function createApprovalInTx(tx: DbTx, request: ApprovalRequest): Promise<{ approvalId: string }> {
  const { scope } = request;
  const run = await tx.run.findUniqueOrThrow({ where: { id: scope.runId }, select: { origin: true, createdBy: true } });
  // The agent's choice of what expiry does (else the deployment's), fixed now: a later change applies to later asks.
  const entry = request.agent ? await tx.catalogEntry.findUnique({ where: { tenantId_kind_entryId: { tenantId: scope.tenantId, kind: "agent", entryId: request.agent.id } }, select: { onApprovalExpired: true } }) : null;
  const row = await tx.approval.create({
    data: {
      tenantId: scope.tenantId,
      projectId: scope.projectId,
      runId: scope.runId,
      kind: request.kind,
      callId: request.callId,
      agentId: request.agent?.id ?? null,
      agentVersion: request.agent?.version ?? null,
      conversationId: scope.conversationId,
      toolId: request.tool?.id ?? null,
      toolVersion: request.tool?.version ?? null,
      reason: request.reason,
      argumentsHash: request.argumentsHash,
      arguments: request.arguments === null || request.arguments === undefined ? undefined : (request.arguments as Prisma.InputJsonValue),
      effects: request.effects as Prisma.InputJsonValue,
      origin: (run.origin ?? undefined) as Prisma.InputJsonValue | undefined,
      startedBy: run.createdBy,
      requestedAt: request.requestedAt,
      expiresAt: request.expiresAt,
      onExpired: request.kind === "session" ? "fail" : expiredApprovalAction(entry?.onApprovalExpired),
    },
  });
  await appendApprovalEvent(tx, row, "approval.requested");
  await notifyApproval(tx, row, "approval.requested");
  afterTransaction(tx, () => wakeFeed(scope.tenantId));
  return { approvalId: row.id };
}

export type ApprovalEventView = { seq: number; type: "approval.requested" | "approval.decided"; approval: ApprovalView; createdAt: string };

/**
 * GET /v1/approvals/stream: the feed after `since`, then every new event as it is written. Woken through the event bus
 * by every write of any replica (subscribed before each read, so a write between the read and the wait is not
 * missed), and reads every {@link APPROVAL_SAFETY_POLL_MS} all the same.
 */
export async function* watchApprovals(actor: Actor, since: number, signal: AbortSignal): AsyncGenerator<ApprovalEventView | null> {
  const db = await getDb();
  let after = since;
  const woken = wakeups(approvalsTopic(actor.tenantId));
  try {
    // The first value tells the caller the stream may start (nothing was refused).
    yield null;
    while (!signal.aborted) {
      const rows = await db.approvalEvent.findMany({ where: { tenantId: actor.tenantId, seq: { gt: after } }, orderBy: { seq: "asc" }, take: 200 });
      const visible = rows.filter((row) => !actor.projectId || row.projectId === actor.projectId);
      const approvals = visible.length ? await db.approval.findMany({ where: { id: { in: visible.map((row) => row.approvalId) } } }) : [];
      for (const row of rows) {
        after = row.seq;
        const approval = visible.includes(row) ? approvals.find((item) => item.id === row.approvalId) : undefined;
        if (approval) yield { seq: row.seq, type: row.type as ApprovalEventView["type"], approval: approvalView(approval), createdAt: row.createdAt.toISOString() };
      }
      if (rows.length === 200) continue;
      await woken.wait(APPROVAL_SAFETY_POLL_MS, signal);
    }
  } finally {
    woken.close();
  }
}

/** A tool version's manifest (registered in the project, or built in). */
async function loadManifest(tenantId: string, projectId: string, toolId: string, version: string): Promise<ToolManifest | null> {
  const db = await getDb();
  const row = await db.catalogVersion.findFirst({ where: { tenantId, projectId, kind: "tool", entryId: toolId, version }, select: { document: true } });
  if (row) return JSON.parse(row.document) as ToolManifest;
  return isBuiltinToolId(toolId) ? (getBuiltinTool(toolId, version) ?? null) : null;
}

// ---- reading ----

async function findApproval(actor: Actor, approvalId: string, tx?: DbTx): Promise<Approval> {
  const db = tx ?? (await getDb());
  const row = await db.approval.findFirst({ where: { id: approvalId, tenantId: actor.tenantId, ...projectFilter(actor) } });
  if (!row) throw notFound("approval", approvalId);
  return row;
}

export async function getApproval(actor: Actor, approvalId: string): Promise<ApprovalView> {
  return approvalView(await findApproval(actor, approvalId));
}

/** `decided`: any status but pending. */
export const APPROVAL_STATUS_FILTERS = [...APPROVAL_STATUSES, "decided"] as const;
export type ApprovalStatusFilter = (typeof APPROVAL_STATUS_FILTERS)[number];
export const APPROVAL_ORDERS = ["oldest", "newest"] as const;

export type ApprovalFilters = { status?: ApprovalStatusFilter; runId?: string; agentId?: string; toolId?: string; projectId?: string; order?: (typeof APPROVAL_ORDERS)[number] };

/** (key, id) after the cursor in the list's order. */
function afterCursor(cursor: string | undefined, key: "requestedAt" | "decidedAt", newest: boolean): Prisma.ApprovalWhereInput {
  if (!cursor) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== "string" || typeof parsed[1] !== "string" || Number.isNaN(Date.parse(parsed[0]))) {
    throw new AppError("bad-input", "cursor is not a cursor this list gave", { issues: [{ path: "/cursor", message: "not a cursor of this list" }] });
  }
  const at = new Date(parsed[0]);
  const beyond = newest ? "lt" : "gt";
  return { OR: [{ [key]: { [beyond]: at } }, { [key]: at, id: { [beyond]: parsed[1] } }] };
}

/**
 * GET /v1/approvals: oldest first (or `order: "newest"`). A list of decided approvals (`decided` or a decided status) is
 * ordered by when they were decided, any other by when they were asked for.
 */
export async function listApprovals(actor: Actor, filters: ApprovalFilters, page: { limit: number; cursor?: string }): Promise<Page<ApprovalView>> {
  const db = await getDb();
  const key = filters.status && filters.status !== "pending" ? "decidedAt" : "requestedAt";
  const newest = filters.order === "newest";
  const status = filters.status === "decided" ? { not: "pending" } : filters.status;
  const rows = await db.approval.findMany({
    where: {
      tenantId: actor.tenantId,
      ...projectFilter(actor, filters.projectId),
      ...(status ? { status } : {}),
      ...(key === "decidedAt" ? { decidedAt: { not: null } } : {}),
      ...(filters.runId ? { runId: filters.runId } : {}),
      ...(filters.agentId ? { agentId: filters.agentId } : {}),
      ...(filters.toolId ? { toolId: filters.toolId } : {}),
      AND: [afterCursor(page.cursor, key, newest)],
    },
    orderBy: [{ [key]: newest ? "desc" : "asc" }, { id: newest ? "desc" : "asc" }],
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (row) => [(row[key] ?? row.requestedAt).toISOString(), row.id], approvalView);
}

// ---- deciding ----

export type CompleteApprovalInput = {
  decision: "approve" | "reject" | "withdraw";
  rationale?: string;
  remember?: boolean | { condition: Record<string, unknown> | boolean };
  arguments?: Record<string, unknown>;
};

const STATUS_OF = { approve: "approved", reject: "rejected", withdraw: "withdrawn" } as const;

const prefixed = (issues: Issue[], prefix: string) => issues.map((issue) => ({ ...issue, path: `${prefix}${issue.path}` }));

/** The lease a resumed run is put under: this process's worker, so it executes it at once. */
function leaseForThisWorker(): { leaseOwner: string; leaseExpiresAt: Date } {
  const kernel = getKernel();
  return { leaseOwner: kernel.id, leaseExpiresAt: new Date(Date.now() + kernel.options.leaseMs) };
}

/** Puts a suspended run back to running under this worker's lease (in the caller's transaction); false when it is not suspended. */
async function resumeInTx(tx: DbTx, runId: string): Promise<boolean> {
  const updated = await tx.run.updateMany({ where: { id: runId, status: "suspended" }, data: { status: "running", ...leaseForThisWorker() } });
  return updated.count > 0;
}

function alreadyDecided(row: Approval, status: string): AppError {
  return new AppError("approval-already-decided", `approval ${row.id} was already decided (${row.status}); it cannot be ${status} now`, { approvalId: row.id, status: row.status });
}

function runTerminal(runId: string, status: string): AppError {
  return new AppError("run-already-terminal", `run ${runId} has already ${status === "cancelled" ? "been cancelled" : status}: its approvals can no longer be decided`, { runId, status });
}

type CheckedDecision =
  | { current: ApprovalView }
  | { found: Approval; status: (typeof STATUS_OF)[keyof typeof STATUS_OF]; edited: unknown; condition: unknown; remember: boolean };

/**
 * Whether `input` can decide the approval, with nothing written: the decider's rights, the approval's and its run's
 * state, edited arguments against the tool's input schema, a grant's condition. The same decision again → the current
 * state (`current`).
 */
async function checkDecision(actor: Actor, approvalId: string, input: CompleteApprovalInput): Promise<CheckedDecision> {
  requireDecider(actor);
  const status = STATUS_OF[input.decision];
  const found = await findApproval(actor, approvalId);
  const db = await getDb();
  const run = await db.run.findUniqueOrThrow({ where: { id: found.runId }, select: { status: true, tenantId: true, projectId: true } });
  if (found.status !== "pending") {
    if (found.status === status) return { current: approvalView(found) };
    if (isTerminalStatus(run.status)) throw runTerminal(found.runId, run.status);
    throw alreadyDecided(found, status);
  }
  if (isTerminalStatus(run.status)) throw runTerminal(found.runId, run.status);
  if (found.kind === "session" && (input.arguments !== undefined || (input.remember !== undefined && input.remember !== false))) {
    throw new AppError("bad-input", "a session approval takes no arguments and cannot be remembered", { issues: [{ path: input.arguments !== undefined ? "/arguments" : "/remember", message: "not allowed on a session approval" }] });
  }
  if (input.decision !== "approve" && (input.arguments !== undefined || (input.remember !== undefined && input.remember !== false))) {
    throw new AppError("bad-input", "arguments and remember go with approve only", { issues: [{ path: input.arguments !== undefined ? "/arguments" : "/remember", message: "only with decision approve" }] });
  }
  let edited: unknown = undefined;
  if (input.arguments !== undefined) {
    const manifest = found.toolId && found.toolVersion ? await loadManifest(found.tenantId, found.projectId, found.toolId, found.toolVersion) : null;
    if (!manifest) throw new AppError("validation-failed", "the tool version of this approval can no longer be loaded, so edited arguments cannot be checked", { issues: [{ path: "/arguments", message: "the tool version is not available" }] });
    const checked = getValidator(manifest.input, manifest.transport)(input.arguments);
    if (!checked.ok) throw new AppError("validation-failed", `the edited arguments do not match the tool's input schema: ${checked.issues.slice(0, 5).map((i) => `${i.path || "/"} ${i.message}`).join("; ")}`, { issues: prefixed(checked.issues, "/arguments") });
    edited = input.arguments;
  }
  let condition: unknown = null;
  if (typeof input.remember === "object" && input.remember !== null) {
    condition = input.remember.condition;
    try {
      getValidator(condition as Record<string, unknown>);
    } catch (error) {
      throw new AppError("validation-failed", `remember.condition is not a JSON Schema this server can evaluate: ${error instanceof Error ? error.message : String(error)}`, { issues: [{ path: "/remember/condition", message: "not a valid JSON Schema" }] });
    }
  }
  const remember = input.remember === true || (typeof input.remember === "object" && input.remember !== null);
  return { found, status, edited, condition, remember };
}

/** Checks a decision without recording it (see completeApproval): throws what completeApproval would. */
export async function checkApprovalDecision(actor: Actor, approvalId: string, input: CompleteApprovalInput): Promise<void> {
  await checkDecision(actor, approvalId, input);
}

/**
 * POST /v1/approvals/{approvalId}/complete. The same decision twice → the current state; a different one → 409
 * approval-already-decided; on a finished run → 409 run-already-terminal. Approve with `arguments` approves an
 * edited call (validated against the tool's input schema first: 400 with issues, nothing recorded). Withdraw ends
 * the run (cancelled).
 */
export async function completeApproval(actor: Actor, approvalId: string, input: CompleteApprovalInput): Promise<ApprovalView> {
  const checked = await checkDecision(actor, approvalId, input);
  if ("current" in checked) return checked.current;
  const { found, status, edited, condition, remember } = checked;
  const db = await getDb();
  const outcome = await db.$transaction(async (tx) => {
    const now = new Date();
    // The guard: of two reviewers deciding at the same instant, one UPDATE changes the row.
    const updated = await tx.approval.updateMany({
      where: { id: approvalId, status: "pending" },
      data: { status, decidedBy: actor.userId, decidedAt: now, rationale: input.rationale ?? null, ...(edited !== undefined ? { editedArguments: edited as Prisma.InputJsonValue } : {}) },
    });
    if (updated.count === 0) return { raced: true as const };
    let grant: ApprovalGrant | null = null;
    if (remember && found.agentId && found.toolId) {
      grant = await tx.approvalGrant.create({ data: { tenantId: found.tenantId, projectId: found.projectId, agentId: found.agentId, toolId: found.toolId, condition: condition === null ? undefined : (condition as Prisma.InputJsonValue), approvalId, createdBy: actor.userId } });
      await tx.approval.update({ where: { id: approvalId }, data: { grantId: grant.id } });
      await audit(tx, actor, { action: "approval-grant.created", subjectType: "approval-grant", subjectId: grant.id, projectId: found.projectId, data: { agentId: found.agentId, toolId: found.toolId, conditional: condition !== null, approvalId } });
    }
    const row = await tx.approval.findUniqueOrThrow({ where: { id: approvalId } });
    await audit(tx, actor, { action: `approval.${status}`, subjectType: "approval", subjectId: approvalId, projectId: found.projectId, data: { runId: found.runId, callId: found.callId, toolId: found.toolId, edited: edited !== undefined, ...(grant ? { grantId: grant.id } : {}) } });
    await appendApprovalEvent(tx, row, "approval.decided");
    await notifyApproval(tx, row, "approval.decided");
    if (status === "withdrawn") {
      await endRunInTx(tx, found.runId, actor.userId);
      return { raced: false as const, row, resumed: false, ended: true };
    }
    return { raced: false as const, row, resumed: await resumeInTx(tx, found.runId), ended: false };
  });
  if (outcome.raced) {
    const current = await findApproval(actor, approvalId);
    if (current.status === status) return approvalView(current);
    throw alreadyDecided(current, status);
  }
  wakeFeed(found.tenantId);
  const kernel = getKernel();
  if (outcome.ended) {
    kernel.abort(found.runId, "cancelled");
    announceRun(found.runId);
  }
  if (outcome.resumed) void kernel.execute(found.runId);
  return approvalView(outcome.row);
}

/**
 * A withdrawal ends the run as cancelled (journaled as run-cancelled), in the caller's transaction, and withdraws
 * the run's other open approvals and wait tokens.
 */
async function endRunInTx(tx: DbTx, runId: string, by: string): Promise<void> {
  const updated = await tx.run.updateMany({
    where: { id: runId, status: { notIn: ["completed", "failed", "cancelled"] } },
    data: { status: "cancelled", finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null, lastSeq: { increment: 1 } },
  });
  if (updated.count === 0) return;
  const row = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { tenantId: true, lastSeq: true } });
  await tx.runEvent.create({ data: { tenantId: row.tenantId, runId, seq: row.lastSeq, type: "run-cancelled", data: { by } } });
  await withdrawOpenInTx(tx, runId);
  afterTransaction(tx, () => traceRunEnded(runId));
}

/** Withdraws a finished run's open approvals and wait tokens (a cancelled run calls it in its transaction). */
export async function withdrawOpenInTx(tx: DbTx, runId: string): Promise<void> {
  const open = await tx.approval.findMany({ where: { runId, status: "pending" }, select: { id: true, tenantId: true, projectId: true } });
  if (open.length) {
    await tx.approval.updateMany({ where: { runId, status: "pending" }, data: { status: "withdrawn", decidedAt: new Date() } });
    for (const row of open) await appendApprovalEvent(tx, row, "approval.decided");
    afterTransaction(tx, () => wakeFeed(open[0].tenantId));
  }
  await tx.toolWait.updateMany({ where: { runId, status: "pending" }, data: { status: "withdrawn" } });
}

// ---- grants ----

export type GrantFilters = { agentId?: string; toolId?: string; projectId?: string; revoked?: boolean };

/** GET /v1/approval-grants: newest first. */
export async function listGrants(actor: Actor, filters: GrantFilters, page: { limit: number; cursor?: string }): Promise<Page<GrantView>> {
  const db = await getDb();
  let after: Prisma.ApprovalGrantWhereInput = {};
  if (page.cursor) {
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(Buffer.from(page.cursor, "base64url").toString("utf8"));
    } catch {
      parsed = null;
    }
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== "string" || typeof parsed[1] !== "string" || Number.isNaN(Date.parse(parsed[0]))) {
      throw new AppError("bad-input", "cursor is not a cursor this list gave", { issues: [{ path: "/cursor", message: "not a cursor of this list" }] });
    }
    const at = new Date(parsed[0]);
    after = { OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: parsed[1] } }] };
  }
  const rows = await db.approvalGrant.findMany({
    where: {
      tenantId: actor.tenantId,
      ...projectFilter(actor, filters.projectId),
      ...(filters.agentId ? { agentId: filters.agentId } : {}),
      ...(filters.toolId ? { toolId: filters.toolId } : {}),
      ...(filters.revoked === undefined ? {} : filters.revoked ? { revokedAt: { not: null } } : { revokedAt: null }),
      ...after,
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (row) => [row.createdAt.toISOString(), row.id], grantView);
}

/** POST /v1/approval-grants/{grantId}/revoke: later calls ask again; revoking twice answers the revoked grant. */
export async function revokeGrant(actor: Actor, grantId: string): Promise<GrantView> {
  requireWrite(actor);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await tx.approvalGrant.findFirst({ where: { id: grantId, tenantId: actor.tenantId, ...projectFilter(actor) } });
    if (!row) throw notFound("approval grant", grantId);
    if (row.revokedAt) return grantView(row);
    const revoked = await tx.approvalGrant.update({ where: { id: grantId }, data: { revokedAt: new Date(), revokedBy: actor.userId } });
    await audit(tx, actor, { action: "approval-grant.revoked", subjectType: "approval-grant", subjectId: grantId, projectId: row.projectId, data: { agentId: row.agentId, toolId: row.toolId } });
    return grantView(revoked);
  });
}

// ---- wait tokens ----

export type WaitView = { id: string; runId: string; callId: string; toolId: string; status: string; output: unknown; expiresAt: string; completedAt: string | null };

const waitView = (row: ToolWait): WaitView => ({ id: row.id, runId: row.runId, callId: row.callId, toolId: row.toolId, status: row.status, output: row.output ?? null, expiresAt: row.expiresAt.toISOString(), completedAt: row.completedAt?.toISOString() ?? null });

function tokenMatches(token: string, hash: string): boolean {
  const given = Buffer.from(sha256Hex(token), "hex");
  const want = Buffer.from(hash, "hex");
  return given.length === want.length && timingSafeEqual(given, want);
}

/**
 * POST /v1/waits/{waitId}/complete: the token is the credential (no API key). The output, valid against the
 * tool's `output`, becomes the call's result and the run resumes; completing twice answers the completed wait.
 */
export async function completeWait(waitId: string, token: string, output: unknown): Promise<WaitView> {
  const db = await getDb();
  const found = await db.toolWait.findUnique({ where: { id: waitId } });
  // An unknown wait and a wrong token are answered alike.
  if (!found || !tokenMatches(token, found.tokenHash)) throw notFound("wait", waitId);
  if (found.status === "completed") return waitView(found);
  if (found.status !== "pending" || found.expiresAt.getTime() <= Date.now()) {
    throw new AppError("wait-not-pending", `wait ${waitId} is ${found.status === "pending" ? "expired" : found.status} and takes no answer`, { waitId, status: found.status === "pending" ? "expired" : found.status });
  }
  const manifest = await loadManifest(found.tenantId, found.projectId, found.toolId, found.toolVersion);
  if (!manifest) throw new AppError("wait-not-pending", `the tool version of wait ${waitId} is no longer available`, { waitId });
  const checked = getValidator(manifest.output, manifest.transport)(output);
  if (!checked.ok) throw new AppError("validation-failed", `the answer does not match the tool's output schema: ${checked.issues.slice(0, 5).map((i) => `${i.path || "/"} ${i.message}`).join("; ")}`, { issues: prefixed(checked.issues, "/output") });
  const outcome = await db.$transaction(async (tx) => {
    const updated = await tx.toolWait.updateMany({ where: { id: waitId, status: "pending" }, data: { status: "completed", output: checked.value as Prisma.InputJsonValue, completedAt: new Date() } });
    const row = await tx.toolWait.findUniqueOrThrow({ where: { id: waitId } });
    if (updated.count === 0) return { row, resumed: false };
    await audit(tx, { tenantId: found.tenantId, userId: found.runId }, { action: "wait.completed", subjectType: "wait", subjectId: waitId, projectId: found.projectId, data: { runId: found.runId, callId: found.callId, toolId: found.toolId } });
    return { row, resumed: await resumeInTx(tx, found.runId) };
  });
  if (outcome.row.status !== "completed") throw new AppError("wait-not-pending", `wait ${waitId} is ${outcome.row.status} and takes no answer`, { waitId, status: outcome.row.status });
  if (outcome.resumed) void getKernel().execute(found.runId);
  return waitView(outcome.row);
}

// ---- expiry ----

/**
 * Marks past-due approvals and wait tokens expired and resumes their runs here (the kernel sends an expired
 * approval back to the model as a rejection with reason `expired`, or fails the turn, by KINDGI_APPROVAL_EXPIRED;
 * an expired wait fails the call). Safe on several replicas: each row is taken by one guarded UPDATE.
 */
export async function sweepExpired(now = new Date()): Promise<{ approvals: number; waits: number }> {
  const db = await getDb();
  const due = await db.approval.findMany({ where: { status: "pending", expiresAt: { lte: now } }, select: { id: true }, take: 500 });
  const dueWaits = await db.toolWait.findMany({ where: { status: "pending", expiresAt: { lte: now } }, select: { id: true }, take: 500 });
  const resumed: string[] = [];
  const tenants = new Set<string>();
  let approvals = 0;
  for (const { id } of due) {
    await db.$transaction(async (tx) => {
      const updated = await tx.approval.updateMany({ where: { id, status: "pending", expiresAt: { lte: now } }, data: { status: "expired", decidedAt: new Date() } });
      if (!updated.count) return;
      approvals += 1;
      const row = await tx.approval.findUniqueOrThrow({ where: { id } });
      await appendApprovalEvent(tx, row, "approval.decided");
      await notifyApproval(tx, row, "approval.decided");
      tenants.add(row.tenantId);
      if (await resumeInTx(tx, row.runId)) resumed.push(row.runId);
    });
  }
  let waits = 0;
  for (const { id } of dueWaits) {
    await db.$transaction(async (tx) => {
      const updated = await tx.toolWait.updateMany({ where: { id, status: "pending", expiresAt: { lte: now } }, data: { status: "expired" } });
      if (!updated.count) return;
      waits += 1;
      const row = await tx.toolWait.findUniqueOrThrow({ where: { id } });
      if (await resumeInTx(tx, row.runId)) resumed.push(row.runId);
    });
  }
  for (const tenantId of tenants) wakeFeed(tenantId);
  const kernel = getKernel();
  for (const runId of new Set(resumed)) void kernel.execute(runId);
  return { approvals, waits };
}

const holder = globalThis as unknown as { kindgiApprovalSweeper?: NodeJS.Timeout };

/** Starts the expiry sweeper of this process (KINDGI_APPROVAL_SWEEP_MS, default 5000). */
export function startApprovalSweeper(env: NodeJS.ProcessEnv = process.env): void {
  if (holder.kindgiApprovalSweeper) return;
  const parsed = Number(env.KINDGI_APPROVAL_SWEEP_MS);
  const every = Number.isFinite(parsed) && parsed >= 100 ? parsed : 5000;
  let sweeping = false;
  holder.kindgiApprovalSweeper = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    void sweepExpired()
      .catch((error) => log.error("the approval expiry sweep failed", { err: error }))
      .finally(() => (sweeping = false));
  }, every);
  holder.kindgiApprovalSweeper.unref();
}

// ---- the kernel's gateway ----

/** The public base of completion links (KINDGI_PUBLIC_URL, else NEXTAUTH_URL, else this server on its port). */
/**
 * The project's notification endpoints hear of an approval asked for or decided, in the transaction that records
 * it: what it is about, a link to its console page (`/approvals/{id}`) and its API URL — never its arguments (edited
 * or not) or anything secret.
 */
async function notifyApproval(tx: DbTx, row: Approval, type: "approval.requested" | "approval.decided"): Promise<void> {
  await enqueueNotification(tx, {
    tenantId: row.tenantId,
    projectId: row.projectId,
    type,
    link: `${publicBaseUrl()}/approvals/${row.id}`,
    data: {
      approvalId: row.id,
      apiUrl: `${publicBaseUrl()}/v1/approvals/${row.id}`,
      kind: row.kind,
      status: row.status,
      reason: row.reason,
      runId: row.runId,
      callId: row.callId,
      agentId: row.agentId,
      agentVersion: row.agentVersion,
      toolId: row.toolId,
      toolVersion: row.toolVersion,
      requestedAt: row.requestedAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      ...(type === "approval.decided" ? { decidedBy: row.decidedBy, decidedAt: row.decidedAt?.toISOString() ?? null, rationale: row.rationale, edited: row.editedArguments !== null } : {}),
    },
  });
}

function publicBaseUrl(): string {
  const base = process.env.KINDGI_PUBLIC_URL ?? process.env.NEXTAUTH_URL ?? `http://127.0.0.1:${process.env.PORT ?? "3000"}`;
  return base.replace(/\/+$/, "");
}

/** What the kernel's gate and pauses use (lib/kernel/environment.ts ApprovalGateway), on the product database. */
/** The commit's transaction the kernel hands through (opaque to it): the product database's. */
const dbTx = (tx: KernelTx): DbTx => tx as unknown as DbTx;

export const dbApprovalGateway: ApprovalGateway = {
  async grants(scope, agentId, toolId) {
    const db = await getDb();
    const rows = await db.approvalGrant.findMany({ where: { tenantId: scope.tenantId, projectId: scope.projectId, agentId, toolId, revokedAt: null }, select: { id: true, condition: true }, orderBy: { createdAt: "asc" } });
    return rows.map((row) => ({ id: row.id, condition: row.condition ?? null }));
  },

  async toolsAllowedUnattended(scope) {
    const db = await getDb();
    const row = await db.run.findUnique({ where: { id: scope.runId }, select: { toolsAllowedUnattended: true } });
    return row?.toolsAllowedUnattended ?? [];
  },

  approvalTtlMs: () => approvalTtlMs(),

  createApproval: (tx, request) => createApprovalInTx(dbTx(tx), request),

  async loadApprovals(ids) {
    const db = await getDb();
    const rows = await db.approval.findMany({ where: { id: { in: [...ids] } } });
    return rows.map((row): ApprovalRecord => ({ id: row.id, runId: row.runId, callId: row.callId, status: row.status, argumentsHash: row.argumentsHash, arguments: row.arguments ?? null, editedArguments: row.editedArguments ?? null, decidedBy: row.decidedBy, rationale: row.rationale, onExpired: expiryOf(row) }));
  },

  async createWait(kernelTx, input) {
    const tx = dbTx(kernelTx);
    const { scope } = input;
    const row = await tx.toolWait.upsert({
      where: { runId_callId: { runId: scope.runId, callId: input.callId } },
      create: { tenantId: scope.tenantId, projectId: scope.projectId, runId: scope.runId, callId: input.callId, toolId: input.tool.id, toolVersion: input.tool.version, tokenHash: input.tokenHash, expiresAt: input.expiresAt },
      update: { tokenHash: input.tokenHash, expiresAt: input.expiresAt, status: "pending", output: undefined, completedAt: null },
      select: { id: true },
    });
    return { waitId: row.id };
  },

  async startWait(kernelTx, waitId, expiresAt) {
    const tx = dbTx(kernelTx);
    const capped = new Date(Math.min(expiresAt.getTime(), Date.now() + MAX_WAIT_MS));
    await tx.toolWait.updateMany({ where: { id: waitId, status: "pending" }, data: { expiresAt: capped } });
  },

  async discardWait(kernelTx, waitId) {
    const tx = dbTx(kernelTx);
    await tx.toolWait.updateMany({ where: { id: waitId, status: "pending" }, data: { status: "withdrawn" } });
  },

  async loadWaits(ids) {
    const db = await getDb();
    const rows = await db.toolWait.findMany({ where: { id: { in: [...ids] } } });
    return rows.map((row): WaitRecord => ({ id: row.id, runId: row.runId, callId: row.callId, status: row.status, output: row.output ?? null }));
  },

  completionUrl: (waitId) => `${publicBaseUrl()}/v1/waits/${waitId}/complete`,

  async stillPending(kernelTx, awaited) {
    const tx = dbTx(kernelTx);
    let pending = 0;
    if (awaited.approvalIds.length) {
      const rows = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM "Approval" WHERE id = ANY(${[...awaited.approvalIds]}::uuid[]) FOR UPDATE`;
      if (rows.length !== awaited.approvalIds.length) return false;
      pending += rows.filter((row) => row.status === "pending").length;
    }
    if (awaited.waitIds.length) {
      const rows = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM "ToolWait" WHERE id = ANY(${[...awaited.waitIds]}::uuid[]) FOR UPDATE`;
      if (rows.length !== awaited.waitIds.length) return false;
      pending += rows.filter((row) => row.status === "pending").length;
    }
    return pending === awaited.approvalIds.length + awaited.waitIds.length;
  },
};

/** The tenant's last feed number: a stream without Last-Event-ID starts after it. */
export async function latestApprovalSeq(actor: Actor): Promise<number> {
  const db = await getDb();
  const row = await db.approvalEventCounter.findUnique({ where: { tenantId: actor.tenantId } });
  return row?.lastSeq ?? 0;
}
