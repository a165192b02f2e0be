import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getAgentVersionResolutionOperation } from "@/lib/api/operations/agents";
import { getAgentVersionResolution } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// GET /v1/agents/{agentId}/versions/{version}/resolution – what each tool range resolves to now
export const GET = route(getAgentVersionResolutionOperation, async ({ actor, params }) => ok(await getAgentVersionResolution(actor, params.agentId, params.version)));
