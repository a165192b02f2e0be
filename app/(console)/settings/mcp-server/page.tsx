import { McpServerPage } from "@/components/settings/mcp-server";

export const metadata = { title: "MCP server · Settings · Kindgi Console" };

// /settings/mcp-server
export default function Page() {
  return <McpServerPage />;
}
