import { McpPage } from "@/components/settings/mcp";

export const metadata = { title: "MCP endpoints · Settings · Kindgi Console" };

// /settings/mcp
export default function Page() {
  return <McpPage />;
}
