import { route } from "@/lib/api/route";
import { getResponseOperation } from "@/lib/api/operations/openai";
import { getResponse } from "@/lib/doors/openai/responses";

export const dynamic = "force-dynamic";

// GET /v1/responses/{responseId} – a stored response
export const GET = route(getResponseOperation, async ({ actor, params }) => getResponse(actor, params.responseId));
