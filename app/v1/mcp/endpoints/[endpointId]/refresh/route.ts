import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { refreshMcpEndpointOperation } from "@/lib/api/operations/mcp";
import { refreshMcpEndpoint } from "@/lib/services/mcp-endpoints";

export const dynamic = "force-dynamic";

// POST /v1/mcp/endpoints/{endpointId}/refresh – list the server's tools again
export const POST = route(refreshMcpEndpointOperation, async ({ actor, params }) => ok(await refreshMcpEndpoint(actor, params.endpointId)));
