import { route } from "@/lib/api/route";
import { invokeToolVersionOperation } from "@/lib/api/operations/tools";
import { invokeTool, type InvokeToolInput } from "@/lib/services/invoke-tool";

export const dynamic = "force-dynamic";

// POST /v1/tools/{toolId}/versions/{version}/invoke – call one tool version as a run (201 settled, 202 accepted)
export const POST = route(invokeToolVersionOperation, async ({ actor, params, body }) => invokeTool(actor, params.toolId, params.version, body as InvokeToolInput));
