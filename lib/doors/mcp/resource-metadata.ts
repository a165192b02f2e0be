/**
 * The MCP server's protected-resource metadata (RFC 9728), where a 401 of /v1/mcp points. There is no OAuth
 * authorization server: a client sends a Kindgi API key as a bearer token in the Authorization header.
 */
export function mcpResourceMetadata(origin: string) {
  return {
    resource: `${origin}/v1/mcp`,
    resource_name: "Kindgi tool catalog (MCP)",
    authorization_servers: [] as string[],
    bearer_methods_supported: ["header"],
    resource_documentation: `${origin}/v1/openapi.json`,
  };
}
