import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { mcpResourceMetadataOperation } from "@/lib/api/operations/mcp";
import { publicOrigin } from "@/lib/api/public-origin";
import { mcpResourceMetadata } from "@/lib/doors/mcp/resource-metadata";

export const dynamic = "force-dynamic";

// GET /.well-known/oauth-protected-resource/v1/mcp – the MCP server's protected-resource metadata (RFC 9728; public)
export const GET = route(mcpResourceMetadataOperation, async ({ request }) => ok(mcpResourceMetadata(publicOrigin(request))));
