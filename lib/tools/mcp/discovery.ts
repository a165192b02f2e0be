/**
 * Discovery: the tools an MCP server lists (every page, following `nextCursor`) as Kindgi tool manifests.
 *
 * - id `<endpoint name>.<tool name>`, lower-cased, every character outside `[a-z0-9._-]` replaced by `-`;
 * - `input` is the server's `inputSchema`, `output` its `outputSchema` (both kept in the dialect they declare), or
 *   {@link MCP_CONTENT_OUTPUT_SCHEMA} when it declares none;
 * - `mutating: false` only when the server's annotations say `readOnlyHint: true`;
 * - `metadata`: `mcpToolName` (the name to call), the server's `title` and `annotations`, and the server's name.
 */
import { sha256Hex } from "@/lib/hash";
import { sortedKeysJson } from "@/lib/json";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection } from "./connection";
import { MCP_CONTENT_OUTPUT_SCHEMA } from "./invoke";

/** Pages read before listing stops (a server that keeps answering with a cursor). */
const MAX_PAGES = 50;

export async function listAllTools(connection: McpConnection): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await connection.client.listTools(cursor ? { cursor } : undefined);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** A name in the id grammar: lower case letters, digits, `.`, `_` and `-`. */
export function normalizeIdPart(name: string): string {
  const normalized = name.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "");
  return normalized || "tool";
}

export type DiscoveredTool = { toolId: string; name: string; manifest: Record<string, unknown>; hash: string };

/** The manifest (without version) of a listed tool, and a hash of what defines it. */
export function discoveredTool(endpointName: string, endpoint: string, server: { name: string | null }, tool: Tool): DiscoveredTool {
  const toolId = `${normalizeIdPart(endpointName)}.${normalizeIdPart(tool.name)}`;
  const annotations = tool.annotations as Record<string, unknown> | undefined;
  const title = tool.title ?? (typeof annotations?.title === "string" ? annotations.title : undefined);
  const manifest: Record<string, unknown> = {
    id: toolId,
    description: tool.description?.trim() || title || tool.name,
    input: tool.inputSchema,
    output: tool.outputSchema ?? MCP_CONTENT_OUTPUT_SCHEMA,
    transport: "mcp",
    mcpEndpoint: endpoint,
    mutating: annotations?.readOnlyHint !== true,
    metadata: {
      mcpToolName: tool.name,
      ...(title !== undefined && { title }),
      ...(annotations !== undefined && { annotations }),
      ...(server.name && { mcpServer: server.name }),
    },
  };
  const hash = sha256Hex(sortedKeysJson(manifest));
  return { toolId, name: tool.name, manifest, hash };
}
