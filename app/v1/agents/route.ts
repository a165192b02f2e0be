import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listAgentsOperation, registerAgentOperation } from "@/lib/api/operations/agents";
import { listAgents, registerAgent } from "@/lib/services/agents";

export const dynamic = "force-dynamic";

// POST /v1/agents – register an agent version
export const POST = route(registerAgentOperation, async ({ actor, body }) => created(await registerAgent(actor, body)));

// GET /v1/agents – list agents (latest active version of each)
export const GET = route(listAgentsOperation, async ({ actor, query }) =>
  ok(await listAgents(actor, { projectId: query.projectId as string | undefined, q: query.q as string | undefined, tag: query.tag as string | undefined }, pageParams(query))),
);
