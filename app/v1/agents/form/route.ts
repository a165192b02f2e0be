import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { previewAgentFormOperation } from "@/lib/api/operations/agents";
import { describeAgentDraftForm } from "@/lib/services/agent-preview";

export const dynamic = "force-dynamic";

// POST /v1/agents/form – the parameter form of an unregistered definition (editor live preview)
export const POST = route(previewAgentFormOperation, async ({ body }) => ok(describeAgentDraftForm(body)));
