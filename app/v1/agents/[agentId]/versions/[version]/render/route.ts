import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { renderAgentVersionOperation } from "@/lib/api/operations/agents";
import { renderAgentVersion } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// POST /v1/agents/{agentId}/versions/{version}/render – render the instructions with parameters (preview)
export const POST = route(renderAgentVersionOperation, async ({ actor, params, body }) => ok(await renderAgentVersion(actor, params.agentId, params.version, body)));
