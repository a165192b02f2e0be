import { route } from "@/lib/api/route";
import { cancelResponseOperation } from "@/lib/api/operations/openai";
import { cancelResponse } from "@/lib/doors/openai/responses";

export const dynamic = "force-dynamic";

// POST /v1/responses/{responseId}/cancel – cancels a background response's run
export const POST = route(cancelResponseOperation, async ({ actor, params }) => cancelResponse(actor, params.responseId));
