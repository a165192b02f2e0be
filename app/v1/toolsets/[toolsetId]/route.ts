import { route } from "@/lib/api/route";
import { noContent, ok } from "@/lib/api/respond";
import { deleteToolsetOperation, getToolsetOperation, updateToolsetOperation } from "@/lib/api/operations/toolsets";
import { deleteToolset, getToolset, updateToolset, type UpdateToolsetBody } from "@/lib/services/toolsets";

export const dynamic = "force-dynamic";

// GET /v1/toolsets/{toolsetId} – a toolset and what its references resolve to now
export const GET = route(getToolsetOperation, async ({ actor, params }) => ok(await getToolset(actor, params.toolsetId)));

// PATCH /v1/toolsets/{toolsetId} – change its name, description, tools or agents
export const PATCH = route(updateToolsetOperation, async ({ actor, params, body }) => ok(await updateToolset(actor, params.toolsetId, body as UpdateToolsetBody)));

// DELETE /v1/toolsets/{toolsetId} – delete it (204)
export const DELETE = route(deleteToolsetOperation, async ({ actor, params }) => {
  await deleteToolset(actor, params.toolsetId);
  return noContent();
});
