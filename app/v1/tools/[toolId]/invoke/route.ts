import { route } from "@/lib/api/route";
import { invokeToolOperation } from "@/lib/api/operations/tools";
import { invokeTool, type InvokeToolInput } from "@/lib/services/invoke-tool";

export const dynamic = "force-dynamic";

// POST /v1/tools/{toolId}/invoke – call the tool's latest active version as a run (201 settled, 202 accepted)
export const POST = route(invokeToolOperation, async ({ actor, params, body }) => invokeTool(actor, params.toolId, null, body as InvokeToolInput));
