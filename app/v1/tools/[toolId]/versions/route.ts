import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listToolVersionsOperation } from "@/lib/api/operations/tools";
import { listToolVersions } from "@/lib/services/tools";

export const dynamic = "force-dynamic";

// GET /v1/tools/{toolId}/versions – versions, newest first
export const GET = route(listToolVersionsOperation, async ({ actor, params, query }) => ok(await listToolVersions(actor, params.toolId, pageParams(query))));
