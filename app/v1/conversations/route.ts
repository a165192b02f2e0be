import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listConversationsOperation, openConversationOperation } from "@/lib/api/operations/conversations";
import { listConversations, openConversation } from "@/lib/services/conversations";

export const dynamic = "force-dynamic";

// POST /v1/conversations – open a conversation pinned to an agent version
export const POST = route(openConversationOperation, async ({ actor, body }) => created(await openConversation(actor, body as Parameters<typeof openConversation>[1])));

// GET /v1/conversations – newest first
export const GET = route(listConversationsOperation, async ({ actor, query }) =>
  ok(await listConversations(actor, { agentId: query.agentId as string | undefined, status: query.status as "open" | "closed" | undefined, projectId: query.projectId as string | undefined }, pageParams(query))),
);
