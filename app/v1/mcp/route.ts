import { route } from "@/lib/api/route";
import { mcpServerOperation } from "@/lib/api/operations/mcp";
import { serveMcpRequest } from "@/lib/doors/mcp/server";

export const dynamic = "force-dynamic";

// POST /v1/mcp – the project's tools as an MCP server (Streamable HTTP, stateless; GET and DELETE are 405)
export const POST = route(mcpServerOperation, async ({ request, actor, query, body }) => serveMcpRequest(request, body, actor, query.projectId as string | undefined));
