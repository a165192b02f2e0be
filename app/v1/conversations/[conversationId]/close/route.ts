import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { closeConversationOperation } from "@/lib/api/operations/conversations";
import { closeConversation } from "@/lib/services/conversations";

export const dynamic = "force-dynamic";

// POST /v1/conversations/{conversationId}/close – close it
export const POST = route(closeConversationOperation, async ({ actor, params }) => ok(await closeConversation(actor, params.conversationId)));
