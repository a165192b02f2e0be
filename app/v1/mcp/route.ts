import { route } from "@/lib/api/route";
import { mcpServerOperation, mcpServerStreamOperation } from "@/lib/api/operations/mcp";
import { serveMcpRequest, serveMcpStream } from "@/lib/doors/mcp/server";
import { projectCatalog } from "@/lib/services/mcp-catalog";

export const dynamic = "force-dynamic";

// POST /v1/mcp – the project's tools as an MCP server (Streamable HTTP, stateless; DELETE is 405)
export const POST = route(mcpServerOperation, async ({ request, actor, query, body }) => serveMcpRequest(request, body, actor, () => projectCatalog(actor, query.projectId as string | undefined)));

// GET /v1/mcp – the stream of notifications/tools/list_changed
export const GET = route(mcpServerStreamOperation, async ({ request, actor, query }) => serveMcpStream(request, actor, () => projectCatalog(actor, query.projectId as string | undefined)));
