import { route } from "@/lib/api/route";
import { mcpToolsetServerOperation, mcpToolsetServerStreamOperation, mcpToolsetSessionEndOperation } from "@/lib/api/operations/toolsets";
import { endMcpSession, serveMcpRequest, serveMcpStream } from "@/lib/doors/mcp/server";
import { toolsetCatalog } from "@/lib/services/toolsets";

export const dynamic = "force-dynamic";

// POST /v1/mcp/toolsets/{toolsetId} – a toolset's tools and agents as an MCP server (Streamable HTTP)
export const POST = route(mcpToolsetServerOperation, async ({ request, actor, params, body }) => serveMcpRequest(request, body, actor, () => toolsetCatalog(actor, params.toolsetId)));

// GET /v1/mcp/toolsets/{toolsetId} – its stream of notifications/tools/list_changed
export const GET = route(mcpToolsetServerStreamOperation, async ({ request, actor, params }) => serveMcpStream(request, actor, () => toolsetCatalog(actor, params.toolsetId)));

// DELETE /v1/mcp/toolsets/{toolsetId} – ends the session its Mcp-Session-Id names
export const DELETE = route(mcpToolsetSessionEndOperation, async ({ request, actor, params }) => endMcpSession(request, actor, () => toolsetCatalog(actor, params.toolsetId)));
