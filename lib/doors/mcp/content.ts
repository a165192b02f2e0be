import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * The MCP content items of an output `{content: [...]}` whose items are all content (text, image, audio, resource,
 * resource_link — as an upstream MCP tool's output holds them, lib/tools/mcp/invoke.ts, or in MCP's own shape);
 * null for any other output.
 */
export function contentItemsOf(output: unknown): CallToolResult["content"] | null {
  if (typeof output !== "object" || output === null || Array.isArray(output)) return null;
  const keys = Object.keys(output);
  const content = (output as { content?: unknown }).content;
  if (keys.length !== 1 || !Array.isArray(content) || content.length === 0) return null;
  const items: CallToolResult["content"] = [];
  for (const item of content) {
    if (typeof item !== "object" || item === null) return null;
    const entry = item as Record<string, unknown>;
    const str = (value: unknown) => (typeof value === "string" ? value : undefined);
    switch (entry.type) {
      case "text":
        if (str(entry.text) === undefined) return null;
        items.push({ type: "text", text: entry.text as string });
        break;
      case "image":
      case "audio":
        if (str(entry.data) === undefined || str(entry.mimeType) === undefined) return null;
        items.push({ type: entry.type, data: entry.data as string, mimeType: entry.mimeType as string });
        break;
      case "resource": {
        const resource = (typeof entry.resource === "object" && entry.resource !== null ? entry.resource : entry) as Record<string, unknown>;
        const uri = str(resource.uri);
        const mimeType = str(resource.mimeType);
        if (uri === undefined) return null;
        if (str(resource.text) !== undefined) items.push({ type: "resource", resource: { uri, text: resource.text as string, ...(mimeType ? { mimeType } : {}) } });
        else if (str(resource.blob) !== undefined) items.push({ type: "resource", resource: { uri, blob: resource.blob as string, ...(mimeType ? { mimeType } : {}) } });
        else return null;
        break;
      }
      case "resource_link": {
        if (str(entry.uri) === undefined || str(entry.name) === undefined) return null;
        items.push({ type: "resource_link", uri: entry.uri as string, name: entry.name as string, ...(str(entry.mimeType) ? { mimeType: entry.mimeType as string } : {}), ...(str(entry.description) ? { description: entry.description as string } : {}) });
        break;
      }
      default:
        return null;
    }
  }
  return items;
}
