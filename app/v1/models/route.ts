import { route } from "@/lib/api/route";
import { listModelsOperation } from "@/lib/api/operations/openai";
import { listAgentModels, openAiProject } from "@/lib/services/agent-models";

export const dynamic = "force-dynamic";

// GET /v1/models – the project's agents as OpenAI models
export const GET = route(listModelsOperation, async ({ actor, request }) => ({ status: 200, body: { object: "list", data: await listAgentModels(actor, await openAiProject(actor, request.headers.get("openai-project"))) } }));
