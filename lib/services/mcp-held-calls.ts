/**
 * Calls of the MCP server held for a person's approval past the door's bound (DESIGN.md §9): the call answered
 * "waiting for approval"; the same call again — same server, tool name and arguments, same credential — attaches to
 * the run it started (no second approval, no second run) until one call has answered the run's outcome.
 */
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db";
import type { Actor } from "@/lib/services/actor";

export type HeldCallKey = { server: string; toolName: string; argumentsHash: string };
export type HeldCall = { id: string; runId: string; approvalId: string };

/** The held call `key` names for this credential, while its approval can still be decided or its outcome is unanswered. */
export async function findHeldCall(actor: Actor, key: HeldCallKey): Promise<HeldCall | null> {
  const db = await getDb();
  const row = await db.mcpHeldCall.findFirst({
    where: { tenantId: actor.tenantId, callerId: actor.callerId, argumentsHash: key.argumentsHash, server: key.server, toolName: key.toolName, answeredAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
    select: { id: true, runId: true, approvalId: true },
  });
  return row;
}

/** Records that the call of `key` answered "waiting" for `runId`'s approval (once per run and credential). */
export async function holdCall(actor: Actor, key: HeldCallKey, held: { runId: string; approvalId: string; expiresAt: Date }): Promise<void> {
  const db = await getDb();
  const existing = await db.mcpHeldCall.findFirst({ where: { tenantId: actor.tenantId, callerId: actor.callerId, runId: held.runId, answeredAt: null }, select: { id: true } });
  if (existing) return;
  await db.mcpHeldCall.create({ data: { id: randomUUID(), tenantId: actor.tenantId, callerId: actor.callerId, ...key, ...held } });
}

/** A call answered the run's outcome: the same call again starts anew. */
export async function answerHeldCalls(actor: Actor, runId: string): Promise<void> {
  const db = await getDb();
  await db.mcpHeldCall.updateMany({ where: { tenantId: actor.tenantId, callerId: actor.callerId, runId, answeredAt: null }, data: { answeredAt: new Date() } });
}
