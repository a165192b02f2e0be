import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getAgentVersionFormOperation } from "@/lib/api/operations/agents";
import { getAgentVersionForm } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// GET /v1/agents/{agentId}/versions/{version}/form – the parameter form of a version
export const GET = route(getAgentVersionFormOperation, async ({ actor, params }) => ok(await getAgentVersionForm(actor, params.agentId, params.version)));
