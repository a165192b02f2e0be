import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { createRunOperation, listRunsOperation } from "@/lib/api/operations/runs";
import { createRun, listRuns, type CreateRunInput, type RunFilters } from "@/lib/services/runs";

export const dynamic = "force-dynamic";

// POST /v1/runs – run one turn of an agent (201 settled, 202 accepted, 200 dry run)
export const POST = route(createRunOperation, async ({ actor, body }) => {
  const result = await createRun(actor, body as CreateRunInput);
  return { status: result.status, body: result.body };
});

// GET /v1/runs – newest first, filtered by status, kind, agent, tool, conversation, project, origin
export const GET = route(listRunsOperation, async ({ actor, query }) =>
  ok(await listRuns(actor, { status: query.status, kind: query.kind, agentId: query.agentId, toolId: query.toolId, conversationId: query.conversationId, projectId: query.projectId, origin: query.origin } as RunFilters, pageParams(query))),
);
