import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listMessagesOperation } from "@/lib/api/operations/conversations";
import { listMessages } from "@/lib/services/conversations";

export const dynamic = "force-dynamic";

// GET /v1/conversations/{conversationId}/messages – oldest first
export const GET = route(listMessagesOperation, async ({ actor, params, query }) => ok(await listMessages(actor, params.conversationId, pageParams(query))));
