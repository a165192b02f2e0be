import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { unregisterToolVersionOperation } from "@/lib/api/operations/tools";
import { setToolVersionStatus } from "@/lib/services/tools";

export const dynamic = "force-dynamic";

// POST /v1/tools/{toolId}/versions/{version}/unregister – hide a version
export const POST = route(unregisterToolVersionOperation, async ({ actor, params }) => ok(await setToolVersionStatus(actor, params.toolId, params.version, "unregistered")));
