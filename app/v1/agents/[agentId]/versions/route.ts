import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listAgentVersionsOperation } from "@/lib/api/operations/agents";
import { listAgentVersions } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// GET /v1/agents/{agentId}/versions – versions, newest first
export const GET = route(listAgentVersionsOperation, async ({ actor, params, query }) => ok(await listAgentVersions(actor, params.agentId, pageParams(query))));
