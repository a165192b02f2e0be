import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/** The official SDK's client on an MCP server of this product (`url`), with `key` as its bearer token; `before` sets handlers before it connects. */
export async function connectMcp(url: string, key: string, options: { name?: string; before?: (client: Client) => void } = {}): Promise<Client> {
  const client = new Client({ name: options.name ?? "kindgi-tests", version: "1.0.0" });
  options.before?.(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

/** Every page of the server's `tools/list`. */
export async function allTools(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
