import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { createFactOperation, listFactsOperation } from "@/lib/api/operations/memory";
import { createFact, listFacts } from "@/lib/services/memory";

export const dynamic = "force-dynamic";

// POST /v1/memory/facts – store a fact
export const POST = route(createFactOperation, async ({ actor, body }) =>
  created(await createFact(actor, { type: body.type, content: body.content, projectId: body.projectId, conversationId: body.conversationId })),
);

// GET /v1/memory/facts – facts newest first, or matching `q` best first
export const GET = route(listFactsOperation, async ({ actor, query }) =>
  ok(
    await listFacts(
      actor,
      { projectId: query.projectId as string | undefined, conversationId: query.conversationId as string | undefined, type: query.type as string | undefined, q: query.q as string | undefined },
      pageParams(query),
    ),
  ),
);
