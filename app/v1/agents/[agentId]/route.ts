import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getAgentOperation } from "@/lib/api/operations/agents";
import { getAgent } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// GET /v1/agents/{agentId} – the latest active version and the list of versions
export const GET = route(getAgentOperation, async ({ actor, params }) => ok(await getAgent(actor, params.agentId)));
