import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getMcpEndpointOperation } from "@/lib/api/operations/mcp";
import { getMcpEndpoint } from "@/lib/services/mcp-endpoints";

export const dynamic = "force-dynamic";

// GET /v1/mcp/endpoints/{endpointId} – an MCP endpoint and its status
export const GET = route(getMcpEndpointOperation, async ({ actor, params }) => ok(await getMcpEndpoint(actor, params.endpointId)));
