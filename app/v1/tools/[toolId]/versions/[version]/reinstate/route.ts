import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { reinstateToolVersionOperation } from "@/lib/api/operations/tools";
import { setToolVersionStatus } from "@/lib/services/tools";

export const dynamic = "force-dynamic";

// POST /v1/tools/{toolId}/versions/{version}/reinstate – bring a version back
export const POST = route(reinstateToolVersionOperation, async ({ actor, params }) => ok(await setToolVersionStatus(actor, params.toolId, params.version, "active")));
