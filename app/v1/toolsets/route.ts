import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { createToolsetOperation, listToolsetsOperation } from "@/lib/api/operations/toolsets";
import { createToolset, listToolsets, type CreateToolsetBody } from "@/lib/services/toolsets";

export const dynamic = "force-dynamic";

// GET /v1/toolsets – the toolsets of the caller's projects, newest first
export const GET = route(listToolsetsOperation, async ({ actor, query }) => ok(await listToolsets(actor, { ...pageParams(query), projectId: query.projectId as string | undefined })));

// POST /v1/toolsets – create a toolset (tools and agents by version range, served at /v1/mcp/toolsets/{id})
export const POST = route(createToolsetOperation, async ({ actor, body }) => created(await createToolset(actor, body as CreateToolsetBody)));
