import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { listMcpEndpointsOperation, registerMcpEndpointOperation } from "@/lib/api/operations/mcp";
import { listMcpEndpoints, registerMcpEndpoint, type RegisterMcpEndpointBody } from "@/lib/services/mcp-endpoints";

export const dynamic = "force-dynamic";

// GET /v1/mcp/endpoints – the MCP endpoints of the caller's projects
export const GET = route(listMcpEndpointsOperation, async ({ actor, query }) => ok(await listMcpEndpoints(actor, { ...pageParams(query), projectId: query.projectId as string | undefined })));

// POST /v1/mcp/endpoints – register an MCP server and its tools
export const POST = route(registerMcpEndpointOperation, async ({ actor, body }) => created(await registerMcpEndpoint(actor, body as RegisterMcpEndpointBody)));
