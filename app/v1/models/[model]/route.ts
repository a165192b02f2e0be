import { route } from "@/lib/api/route";
import { getModelOperation } from "@/lib/api/operations/openai";
import { openAiProject, resolveAgentModel } from "@/lib/services/agent-models";

export const dynamic = "force-dynamic";

// GET /v1/models/{model} – one agent as an OpenAI model
export const GET = route(getModelOperation, async ({ actor, request, params }) => ({ status: 200, body: (await resolveAgentModel(actor, await openAiProject(actor, request.headers.get("openai-project")), params.model)).model }));
