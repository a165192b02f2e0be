import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listGrantsOperation } from "@/lib/api/operations/approvals";
import { listGrants, type GrantFilters } from "@/lib/services/approvals";

export const dynamic = "force-dynamic";

// GET /v1/approval-grants – remembered approvals, newest first
export const GET = route(listGrantsOperation, async ({ actor, query }) =>
  ok(await listGrants(actor, { agentId: query.agentId, toolId: query.toolId, projectId: query.projectId, revoked: query.revoked } as GrantFilters, pageParams(query))),
);
