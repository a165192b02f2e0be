import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getAgentOperation, updateAgentOperation } from "@/lib/api/operations/agents";
import { getAgent, updateAgentSettings } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// GET /v1/agents/{agentId} – the latest active version and the list of versions
export const GET = route(getAgentOperation, async ({ actor, params }) => ok(await getAgent(actor, params.agentId)));

// PATCH /v1/agents/{agentId} – settings outside the versioned definition (onApprovalExpired)
export const PATCH = route(updateAgentOperation, async ({ actor, params, body }) => ok(await updateAgentSettings(actor, params.agentId, body as { onApprovalExpired: "reject" | "fail" | null })));
