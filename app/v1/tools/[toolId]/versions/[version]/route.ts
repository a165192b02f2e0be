import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getToolVersionOperation } from "@/lib/api/operations/tools";
import { getToolVersion } from "@/lib/services/tools";

export const dynamic = "force-dynamic";

// GET /v1/tools/{toolId}/versions/{version} – one version with its manifest as registered
export const GET = route(getToolVersionOperation, async ({ actor, params }) => ok(await getToolVersion(actor, params.toolId, params.version)));
