import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listAuditOperation } from "@/lib/api/operations/audit";
import { listAudit, type AuditFilters } from "@/lib/services/audit-log";

export const dynamic = "force-dynamic";

// GET /v1/audit – the tenant's audit events, newest first
export const GET = route(listAuditOperation, async ({ actor, query }) => {
  const filters: AuditFilters = {};
  for (const name of ["action", "subjectType", "subjectId", "actorId", "projectId", "since", "until"] as const) if (typeof query[name] === "string") filters[name] = query[name] as string;
  return ok(await listAudit(actor, filters, pageParams(query)));
});
