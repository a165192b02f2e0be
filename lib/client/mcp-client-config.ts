/**
 * What the MCP server page shows a person to paste into an MCP client: the endpoint URLs of the project and of a
 * toolset, and each client's configuration for one of them. The API key is never in it: a placeholder stands
 * where the person puts theirs (made in Settings → API keys).
 */

/** Where the person's key goes in a configuration. */
export const API_KEY_PLACEHOLDER = "<your API key>";

/** The project's MCP endpoint (POST /v1/mcp); a key narrowed to the project would not need `projectId`. */
export function projectMcpUrl(origin: string, projectId: string): string {
  return `${origin}/v1/mcp?projectId=${encodeURIComponent(projectId)}`;
}

/** A toolset's MCP endpoint: its `mcpPath` (`/v1/mcp/toolsets/<id>`) on this server. */
export function toolsetMcpUrl(origin: string, mcpPath: string): string {
  return `${origin}${mcpPath.startsWith("/") ? "" : "/"}${mcpPath}`;
}

/** `kindgi-<slug>`: a server name a client accepts (lowercase letters, digits and dashes), from a project's or toolset's name. */
export function mcpServerName(label: string): string {
  const slug = label
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return `kindgi-${slug || "project"}`;
}

export type McpClientConfig = {
  id: "claude-desktop" | "vscode" | "claude-code";
  /** The tab's label. */
  label: string;
  /** Where the text goes, in words. */
  where: string;
  text: string;
};

/**
 * The configurations for `url` served as `name`: Claude Desktop's `mcpServers` JSON through the `mcp-remote` bridge
 * (its config file starts stdio servers), VS Code's `.vscode/mcp.json` (HTTP, the key asked for once and kept
 * secret), and Claude Code's `claude mcp add` command.
 */
export function mcpClientConfigs({ name, url }: { name: string; url: string }): McpClientConfig[] {
  const claudeDesktop = {
    mcpServers: {
      [name]: {
        command: "npx",
        args: ["-y", "mcp-remote", url, "--header", "Authorization:${KINDGI_API_KEY}"],
        env: { KINDGI_API_KEY: `Bearer ${API_KEY_PLACEHOLDER}` },
      },
    },
  };
  const vscode = {
    servers: { [name]: { type: "http", url, headers: { Authorization: "Bearer ${input:kindgi-api-key}" } } },
    inputs: [{ type: "promptString", id: "kindgi-api-key", description: "Kindgi API key", password: true }],
  };
  return [
    {
      id: "claude-desktop",
      label: "Claude Desktop",
      where: "Add to claude_desktop_config.json (Settings → Developer → Edit Config), or to any client's mcpServers; mcp-remote bridges the HTTP endpoint to stdio.",
      text: JSON.stringify(claudeDesktop, null, 2),
    },
    {
      id: "vscode",
      label: "VS Code",
      where: "Save as .vscode/mcp.json in your workspace; VS Code asks for the key once and stores it as a secret.",
      text: JSON.stringify(vscode, null, 2),
    },
    {
      id: "claude-code",
      label: "Claude Code",
      where: "Run in a terminal.",
      text: `claude mcp add --transport http ${name} ${shellQuote(url)} --header "Authorization: Bearer ${API_KEY_PLACEHOLDER}"`,
    },
  ];
}

/** `value` as one shell word (single quotes when it holds anything a shell would read, such as `?` or `&`). */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
