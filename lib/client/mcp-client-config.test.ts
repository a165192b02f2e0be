import { describe, expect, it } from "vitest";
import { API_KEY_PLACEHOLDER, mcpClientConfigs, mcpServerName, projectMcpUrl, toolsetMcpUrl } from "@/lib/client/mcp-client-config";

const url = "https://kindgi.example.com/v1/mcp?projectId=9b1d7f3e-0000-4000-8000-000000000001";

describe("endpoint URLs", () => {
  it("names the project in the query and a toolset by its path", () => {
    expect(projectMcpUrl("https://kindgi.example.com", "9b1d7f3e-0000-4000-8000-000000000001")).toBe(url);
    expect(toolsetMcpUrl("http://127.0.0.1:3000", "/v1/mcp/toolsets/abc")).toBe("http://127.0.0.1:3000/v1/mcp/toolsets/abc");
    expect(toolsetMcpUrl("http://127.0.0.1:3000", "v1/mcp/toolsets/abc")).toBe("http://127.0.0.1:3000/v1/mcp/toolsets/abc");
  });
});

describe("mcpServerName", () => {
  it("slugs a name into kindgi-<slug>", () => {
    expect(mcpServerName("Default")).toBe("kindgi-default");
    expect(mcpServerName("  Support Desk (EU) ")).toBe("kindgi-support-desk-eu");
    expect(mcpServerName("Café Ops")).toBe("kindgi-cafe-ops");
    expect(mcpServerName("???")).toBe("kindgi-project");
    expect(mcpServerName("a".repeat(39) + " b")).toBe(`kindgi-${"a".repeat(39)}`);
  });
});

describe("mcpClientConfigs", () => {
  const [desktop, vscode, code] = mcpClientConfigs({ name: "kindgi-default", url });

  it("gives Claude Desktop the mcp-remote bridge with the key in an environment variable", () => {
    expect(desktop.id).toBe("claude-desktop");
    expect(JSON.parse(desktop.text)).toEqual({
      mcpServers: {
        "kindgi-default": {
          command: "npx",
          args: ["-y", "mcp-remote", url, "--header", "Authorization:${KINDGI_API_KEY}"],
          env: { KINDGI_API_KEY: `Bearer ${API_KEY_PLACEHOLDER}` },
        },
      },
    });
  });

  it("gives VS Code an HTTP server whose key is a password input", () => {
    expect(JSON.parse(vscode.text)).toEqual({
      servers: { "kindgi-default": { type: "http", url, headers: { Authorization: "Bearer ${input:kindgi-api-key}" } } },
      inputs: [{ type: "promptString", id: "kindgi-api-key", description: "Kindgi API key", password: true }],
    });
  });

  it("gives Claude Code one command, the URL quoted for the shell", () => {
    expect(code.text).toBe(`claude mcp add --transport http kindgi-default '${url}' --header "Authorization: Bearer <your API key>"`);
    const [, , toolset] = mcpClientConfigs({ name: "kindgi-support", url: "http://127.0.0.1:3000/v1/mcp/toolsets/abc" });
    expect(toolset.text).toBe(`claude mcp add --transport http kindgi-support http://127.0.0.1:3000/v1/mcp/toolsets/abc --header "Authorization: Bearer <your API key>"`);
  });

  it("never holds a key, only the placeholder", () => {
    for (const config of mcpClientConfigs({ name: "kindgi-default", url })) expect(config.text).not.toMatch(/kgi_/);
  });
});
