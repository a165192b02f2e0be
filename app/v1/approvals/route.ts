import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listApprovalsOperation } from "@/lib/api/operations/approvals";
import { listApprovals, type ApprovalFilters } from "@/lib/services/approvals";

export const dynamic = "force-dynamic";

// GET /v1/approvals – oldest (or newest) first, filtered by status, run, agent, tool, project
export const GET = route(listApprovalsOperation, async ({ actor, query }) =>
  ok(await listApprovals(actor, { status: query.status, runId: query.runId, agentId: query.agentId, toolId: query.toolId, projectId: query.projectId, order: query.order } as ApprovalFilters, pageParams(query))),
);
