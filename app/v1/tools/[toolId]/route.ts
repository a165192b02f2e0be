import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getToolOperation } from "@/lib/api/operations/tools";
import { getTool } from "@/lib/services/tools";

export const dynamic = "force-dynamic";

// GET /v1/tools/{toolId} – the latest active version and the list of versions
export const GET = route(getToolOperation, async ({ actor, params }) => ok(await getTool(actor, params.toolId)));
