/**
 * Conversations: a thread of turns with one agent, pinned at open to an agent id and version. Each completed
 * turn appends the user's message and the agent's answer (the kernel does it in the turn's last transaction).
 * A conversation closes on request, or by itself once `autoCloseAfterInactiveSeconds` pass without a turn.
 */
import { getDb, type DbTx } from "@/lib/db";
import { AppError, notFound } from "@/lib/errors";
import type { Conversation } from "@/lib/generated/prisma/client";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { isUuid } from "@/lib/ids";
import type { AgentDefinition } from "@/lib/agents/validate-agent";
import { type Actor, projectFilter, requireWrite } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";

export type ConversationView = {
  id: string;
  projectId: string;
  agent: { id: string; version: string };
  title: string | null;
  status: "open" | "closed";
  closeReason: "requested" | "inactive" | null;
  closedAt: string | null;
  historyLimit: number | null;
  autoCloseAfterInactiveSeconds: number | null;
  messageCount: number;
  createdBy: string;
  createdAt: string;
  lastActivityAt: string;
};

export type MessageView = { seq: number; role: "user" | "assistant"; content: string; runId: string | null; createdAt: string };

export function conversationView(row: Conversation): ConversationView {
  return {
    id: row.id,
    projectId: row.projectId,
    agent: { id: row.agentId, version: row.agentVersion },
    title: row.title,
    status: row.status === "closed" ? "closed" : "open",
    closeReason: row.closeReason === "requested" || row.closeReason === "inactive" ? row.closeReason : null,
    closedAt: row.closedAt?.toISOString() ?? null,
    historyLimit: row.historyLimit,
    autoCloseAfterInactiveSeconds: row.autoCloseAfterInactiveSeconds,
    messageCount: row.messageCount,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    lastActivityAt: row.lastActivityAt.toISOString(),
  };
}

/** When an open conversation closes by inactivity (null: never). */
export function inactiveSince(row: Pick<Conversation, "status" | "autoCloseAfterInactiveSeconds" | "lastActivityAt">): Date | null {
  if (row.status !== "open" || !row.autoCloseAfterInactiveSeconds) return null;
  return new Date(row.lastActivityAt.getTime() + row.autoCloseAfterInactiveSeconds * 1000);
}

/** Closes the conversation when its inactivity period has passed; returns the row as it now stands. */
export async function applyAutoClose(db: DbTx, row: Conversation, now = new Date()): Promise<Conversation> {
  const closesAt = inactiveSince(row);
  if (!closesAt || closesAt > now) return row;
  await db.conversation.updateMany({ where: { id: row.id, status: "open" }, data: { status: "closed", closeReason: "inactive", closedAt: closesAt } });
  return { ...row, status: "closed", closeReason: "inactive", closedAt: closesAt };
}

/** The active agent version a new conversation or run pins: the one asked for, else the latest. */
export async function activeAgentVersion(db: DbTx, actor: Actor, agentId: string, version?: string): Promise<{ projectId: string; version: string; definition: AgentDefinition }> {
  const entry = await db.catalogEntry.findUnique({ where: { tenantId_kind_entryId: { tenantId: actor.tenantId, kind: "agent", entryId: agentId } } });
  if (!entry || (actor.projectId && entry.projectId !== actor.projectId)) throw notFound("agent", agentId);
  const wanted = version ?? entry.latestVersion;
  if (!wanted) throw new AppError("not-found", `agent ${JSON.stringify(agentId)} has no active version`, { agentId });
  const row = await db.catalogVersion.findFirst({ where: { entryRowId: entry.id, version: wanted }, select: { status: true, document: true } });
  if (!row) throw notFound("agent version", `${agentId}@${wanted}`);
  if (row.status !== "active") throw new AppError("not-found", `agent version ${agentId}@${wanted} is unregistered`, { agentId, version: wanted });
  return { projectId: entry.projectId, version: wanted, definition: JSON.parse(row.document) as AgentDefinition };
}

/** POST /v1/conversations: opens a conversation pinned to the agent version (the latest active one by default). */
export async function openConversation(actor: Actor, input: { agent: { id: string; version?: string }; title?: string; history?: readonly { role: "user" | "assistant"; content: string }[] }): Promise<ConversationView> {
  requireWrite(actor);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const agent = await activeAgentVersion(tx, actor, input.agent.id, input.agent.version);
    const policy = agent.definition.conversationPolicy ?? {};
    const row = await tx.conversation.create({
      data: {
        tenantId: actor.tenantId,
        projectId: agent.projectId,
        agentId: input.agent.id,
        agentVersion: agent.version,
        title: input.title ?? null,
        historyLimit: policy.historyLimit ?? null,
        autoCloseAfterInactiveSeconds: policy.autoCloseAfterInactiveSeconds ?? null,
        createdBy: actor.userId,
        messageCount: input.history?.length ?? 0,
      },
    });
    // A history the caller brings (the earlier messages of an OpenAI chat request): the turns before the first run.
    if (input.history?.length) await tx.conversationMessage.createMany({ data: input.history.map((message, index) => ({ tenantId: actor.tenantId, conversationId: row.id, seq: index + 1, role: message.role, content: message.content })) });
    await audit(tx, actor, { action: "conversation.opened", subjectType: "conversation", subjectId: row.id, projectId: row.projectId, data: { agentId: row.agentId, version: row.agentVersion } });
    return conversationView(row);
  });
}

/** A conversation of the actor's tenant (and project, for a narrowed key), with auto-close applied; else 404. */
export async function findConversation(db: DbTx, actor: Actor, conversationId: string): Promise<Conversation> {
  const row = await db.conversation.findFirst({ where: { id: conversationId, tenantId: actor.tenantId, ...projectFilter(actor) } });
  if (!row) throw notFound("conversation", conversationId);
  return applyAutoClose(db, row);
}

export async function getConversation(actor: Actor, conversationId: string): Promise<ConversationView> {
  return conversationView(await findConversation(await getDb(), actor, conversationId));
}

function listCursor(cursor: string | undefined): { createdAt: Date; id: string } | undefined {
  const key = decodeCursor(cursor);
  if (!key) return undefined;
  const [at, id] = key;
  const createdAt = typeof at === "string" ? new Date(at) : null;
  if (!createdAt || Number.isNaN(createdAt.getTime()) || typeof id !== "string" || !isUuid(id)) {
    throw new AppError("bad-input", "cursor is not one this API returned", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
  }
  return { createdAt, id };
}

/** The `(createdAt, id) < cursor` filter of newest-first lists. */
export function newestFirstAfter(cursor: string | undefined) {
  const after = listCursor(cursor);
  return after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {};
}

/** Closes every conversation of the tenant whose inactivity period has passed. */
async function autoCloseInactive(db: DbTx, tenantId: string): Promise<void> {
  await db.$executeRaw`
    UPDATE "Conversation"
    SET status = 'closed', "closeReason" = 'inactive', "closedAt" = "lastActivityAt" + make_interval(secs => "autoCloseAfterInactiveSeconds")
    WHERE "tenantId" = ${tenantId}::uuid AND status = 'open' AND "autoCloseAfterInactiveSeconds" IS NOT NULL
      AND "lastActivityAt" + make_interval(secs => "autoCloseAfterInactiveSeconds") <= now()`;
}

export async function listConversations(actor: Actor, filters: { agentId?: string; status?: "open" | "closed"; projectId?: string }, page: { limit: number; cursor?: string }): Promise<Page<ConversationView>> {
  const db = await getDb();
  await autoCloseInactive(db, actor.tenantId);
  const rows = await db.conversation.findMany({
    where: {
      tenantId: actor.tenantId,
      ...projectFilter(actor, filters.projectId),
      ...(filters.agentId ? { agentId: filters.agentId } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...newestFirstAfter(page.cursor),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (row) => [row.createdAt.toISOString(), row.id], conversationView);
}

/** POST …/close: closes the conversation; closing a closed one answers it as it is. */
export async function closeConversation(actor: Actor, conversationId: string): Promise<ConversationView> {
  requireWrite(actor);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await findConversation(tx, actor, conversationId);
    if (row.status === "closed") return conversationView(row);
    const closed = await tx.conversation.update({ where: { id: row.id }, data: { status: "closed", closeReason: "requested", closedAt: new Date() } });
    await audit(tx, actor, { action: "conversation.closed", subjectType: "conversation", subjectId: row.id, projectId: row.projectId });
    return conversationView(closed);
  });
}

/** GET …/messages: oldest first; the cursor is the last sequence number shown. */
export async function listMessages(actor: Actor, conversationId: string, page: { limit: number; cursor?: string }): Promise<Page<MessageView>> {
  const db = await getDb();
  await findConversation(db, actor, conversationId);
  const after = decodeCursor(page.cursor)?.[0];
  if (after !== undefined && (typeof after !== "number" || !Number.isInteger(after))) {
    throw new AppError("bad-input", "cursor is not one this API returned", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
  }
  const rows = await db.conversationMessage.findMany({
    where: { conversationId, ...(after !== undefined ? { seq: { gt: after } } : {}) },
    orderBy: { seq: "asc" },
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (row) => [row.seq], (row) => ({ seq: row.seq, role: row.role === "assistant" ? "assistant" : "user", content: row.content, runId: row.runId, createdAt: row.createdAt.toISOString() }));
}
