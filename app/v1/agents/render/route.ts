import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { previewAgentRenderOperation } from "@/lib/api/operations/agents";
import { renderAgentDraft } from "@/lib/services/agent-preview";

export const dynamic = "force-dynamic";

// POST /v1/agents/render – render the instructions of an unregistered definition (editor live preview)
export const POST = route(previewAgentRenderOperation, async ({ body }) => ok(renderAgentDraft(body)));
