import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { unregisterMcpEndpointOperation } from "@/lib/api/operations/mcp";
import { unregisterMcpEndpoint } from "@/lib/services/mcp-endpoints";

export const dynamic = "force-dynamic";

// POST /v1/mcp/endpoints/{endpointId}/unregister – unregister an MCP endpoint and its tools
export const POST = route(unregisterMcpEndpointOperation, async ({ actor, params }) => ok(await unregisterMcpEndpoint(actor, params.endpointId)));
