import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listToolsOperation, registerToolOperation } from "@/lib/api/operations/tools";
import { listTools, registerTool } from "@/lib/services/tools";

export const dynamic = "force-dynamic";

// POST /v1/tools – register a tool manifest
export const POST = route(registerToolOperation, async ({ actor, body }) => created(await registerTool(actor, body)));

// GET /v1/tools – list tools (latest active version of each)
export const GET = route(listToolsOperation, async ({ actor, query }) =>
  ok(await listTools(actor, { projectId: query.projectId as string | undefined, q: query.q as string | undefined, effect: query.effect as string | undefined, mutating: query.mutating as boolean | undefined, transport: query.transport as string | undefined }, pageParams(query))),
);
