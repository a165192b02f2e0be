import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getConversationOperation } from "@/lib/api/operations/conversations";
import { getConversation } from "@/lib/services/conversations";

export const dynamic = "force-dynamic";

// GET /v1/conversations/{conversationId} – one conversation
export const GET = route(getConversationOperation, async ({ actor, params }) => ok(await getConversation(actor, params.conversationId)));
