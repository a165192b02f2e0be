import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getAgentVersionOperation } from "@/lib/api/operations/agents";
import { getAgentVersion } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// GET /v1/agents/{agentId}/versions/{version} – one version with its definition as registered
export const GET = route(getAgentVersionOperation, async ({ actor, params }) => ok(await getAgentVersion(actor, params.agentId, params.version)));
