import type { DbTx } from "@/lib/db";
import type { Actor } from "@/lib/services/actor";

/** Records who did what, in the caller's transaction. */
export async function audit(tx: DbTx, actor: Pick<Actor, "tenantId" | "userId">, entry: { action: string; subjectType: string; subjectId: string; projectId?: string | null; data?: Record<string, unknown> }): Promise<void> {
  await tx.auditEvent.create({
    data: { tenantId: actor.tenantId, actorId: actor.userId, action: entry.action, subjectType: entry.subjectType, subjectId: entry.subjectId, projectId: entry.projectId ?? null, data: (entry.data ?? undefined) as object | undefined },
  });
}
