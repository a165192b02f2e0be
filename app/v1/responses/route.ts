import { route } from "@/lib/api/route";
import { createResponseOperation } from "@/lib/api/operations/openai";
import { createResponse, type CreateResponseBody } from "@/lib/doors/openai/responses";

export const dynamic = "force-dynamic";

// POST /v1/responses – an agent's turn as an OpenAI Response (streamed with `stream: true`)
export const POST = route(createResponseOperation, async ({ actor, request, body }) => createResponse(actor, request, body as unknown as CreateResponseBody));
