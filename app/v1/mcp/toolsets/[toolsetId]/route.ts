import { route } from "@/lib/api/route";
import { mcpToolsetServerOperation } from "@/lib/api/operations/toolsets";
import { serveMcpRequest } from "@/lib/doors/mcp/server";
import { toolsetCatalog } from "@/lib/services/toolsets";

export const dynamic = "force-dynamic";

// POST /v1/mcp/toolsets/{toolsetId} – a toolset's tools and agents as an MCP server (Streamable HTTP, stateless)
export const POST = route(mcpToolsetServerOperation, async ({ request, actor, params, body }) => serveMcpRequest(request, body, actor, () => toolsetCatalog(actor, params.toolsetId)));
