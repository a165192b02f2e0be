/**
 * GET /v1/audit: the tenant's audit events (recorded with `audit(tx, …)` in the transaction of each change), newest
 * first, filtered. Who may read which entries is decided in lib/services/actor.ts (`auditFilter`).
 */
import { getDb } from "@/lib/db";
import { type Page } from "@/lib/pagination";
import { type Actor, auditFilter } from "@/lib/services/actor";
import { newestFirstPage, newestFirstWhere } from "@/lib/services/triggers";

export type AuditFilters = { action?: string; subjectType?: string; subjectId?: string; actorId?: string; projectId?: string; since?: string; until?: string };

export type AuditEntryView = {
  id: string;
  /** What was done, `<subject type>.<past participle>` (e.g. `api-key.created`, `schedule.paused`). */
  action: string;
  subjectType: string;
  subjectId: string;
  projectId: string | null;
  /** The user (person or service account) who did it. */
  actorId: string;
  /** What changed, without secrets. */
  data: Record<string, unknown> | null;
  createdAt: string;
};

export async function listAudit(actor: Actor, filters: AuditFilters, page: { limit: number; cursor?: string }): Promise<Page<AuditEntryView>> {
  const scope = auditFilter(actor);
  const db = await getDb();
  const createdAt = { ...(filters.since ? { gte: new Date(filters.since) } : {}), ...(filters.until ? { lt: new Date(filters.until) } : {}) };
  const rows = await db.auditEvent.findMany({
    where: {
      tenantId: actor.tenantId,
      ...(filters.projectId ? { projectId: filters.projectId.toLowerCase() } : {}),
      ...scope,
      ...(scope.projectId && filters.projectId && filters.projectId.toLowerCase() !== scope.projectId ? { id: { in: [] } } : {}),
      ...(filters.action ? { action: filters.action } : {}),
      ...(filters.subjectType ? { subjectType: filters.subjectType } : {}),
      ...(filters.subjectId ? { subjectId: filters.subjectId } : {}),
      ...(filters.actorId ? { actorId: filters.actorId.toLowerCase() } : {}),
      ...(Object.keys(createdAt).length ? { createdAt } : {}),
      AND: [newestFirstWhere(page.cursor)],
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  return newestFirstPage(rows, page.limit, (row) => ({
    id: row.id,
    action: row.action,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    projectId: row.projectId,
    actorId: row.actorId,
    data: (row.data as Record<string, unknown> | null) ?? null,
    createdAt: row.createdAt.toISOString(),
  }));
}
