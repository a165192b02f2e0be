import { route } from "@/lib/api/route";
import { mcpServerOperation, mcpServerStreamOperation, mcpSessionEndOperation } from "@/lib/api/operations/mcp";
import { endMcpSession, serveMcpRequest, serveMcpStream } from "@/lib/doors/mcp/server";
import { projectCatalog } from "@/lib/services/mcp-catalog";

export const dynamic = "force-dynamic";

// POST /v1/mcp – the project's tools as an MCP server (Streamable HTTP; sessions in the database)
export const POST = route(mcpServerOperation, async ({ request, actor, query, body }) => serveMcpRequest(request, body, actor, () => projectCatalog(actor, query.projectId as string | undefined)));

// GET /v1/mcp – the stream of notifications/tools/list_changed
export const GET = route(mcpServerStreamOperation, async ({ request, actor, query }) => serveMcpStream(request, actor, () => projectCatalog(actor, query.projectId as string | undefined)));

// DELETE /v1/mcp – ends the session its Mcp-Session-Id names
export const DELETE = route(mcpSessionEndOperation, async ({ request, actor, query }) => endMcpSession(request, actor, () => projectCatalog(actor, query.projectId as string | undefined)));
