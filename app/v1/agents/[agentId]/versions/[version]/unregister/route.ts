import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { unregisterAgentVersionOperation } from "@/lib/api/operations/agents";
import { setAgentVersionStatus } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// POST /v1/agents/{agentId}/versions/{version}/unregister – hide a version
export const POST = route(unregisterAgentVersionOperation, async ({ actor, params }) => ok(await setAgentVersionStatus(actor, params.agentId, params.version, "unregistered")));
