import { route } from "@/lib/api/route";
import { mcpServerOperation } from "@/lib/api/operations/mcp";
import { serveMcpRequest } from "@/lib/doors/mcp/server";
import { projectCatalog } from "@/lib/services/mcp-catalog";

export const dynamic = "force-dynamic";

// POST /v1/mcp – the project's tools as an MCP server (Streamable HTTP, stateless; GET and DELETE are 405)
export const POST = route(mcpServerOperation, async ({ request, actor, query, body }) => serveMcpRequest(request, body, actor, () => projectCatalog(actor, query.projectId as string | undefined)));
