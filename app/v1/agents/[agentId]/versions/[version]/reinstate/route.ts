import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { reinstateAgentVersionOperation } from "@/lib/api/operations/agents";
import { setAgentVersionStatus } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// POST /v1/agents/{agentId}/versions/{version}/reinstate – bring a version back
export const POST = route(reinstateAgentVersionOperation, async ({ actor, params }) => ok(await setAgentVersionStatus(actor, params.agentId, params.version, "active")));
