import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { closeAllConnections, splitCommandLine } from "./connection";
import { invokeMcpTool, MCP_CONTENT_OUTPUT_SCHEMA } from "./invoke";

const server = path.join(import.meta.dirname, "testing/dying-server.mjs");
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-mcp-unit-"));
let previous: string | undefined;

beforeAll(() => {
  previous = process.env.KINDGI_MCP_STDIO;
  process.env.KINDGI_MCP_STDIO = "allow";
});
afterAll(async () => {
  await closeAllConnections();
  if (previous === undefined) delete process.env.KINDGI_MCP_STDIO;
  else process.env.KINDGI_MCP_STDIO = previous;
  fs.rmSync(folder, { recursive: true, force: true });
});

function tool(name: string, mutating: boolean, log: string): { manifest: ToolManifest; config: () => Promise<{ endpoint: string; headers: Record<string, string> }> } {
  const endpoint = `mcp+stdio://${process.execPath} ${server} ${log}`;
  return {
    manifest: { id: `dying.${name}`, version: "1.0.0", description: name, transport: "mcp", mcpEndpoint: endpoint, mutating, input: { type: "object" }, output: MCP_CONTENT_OUTPUT_SCHEMA },
    config: async () => ({ endpoint, headers: {} }),
  };
}

describe("a connection that dies while a call is in flight", () => {
  it("fails a mutating call without sending it again", async () => {
    const log = path.join(folder, "mutating.log");
    const { manifest, config } = tool("append", true, log);
    const result = await invokeMcpTool(manifest, {}, { tenantId: "t", config });
    expect(result).toMatchObject({ ok: false, error: { kind: "tool-error", reason: "mcp-connection-lost", message: expect.stringContaining("not sent again") } });
    expect(fs.readFileSync(log, "utf8")).toBe("append\n");
  }, 30_000);

  it("sends a read-only call once more on a new connection", async () => {
    const log = path.join(folder, "read-only.log");
    const { manifest, config } = tool("peek", false, log);
    const result = await invokeMcpTool(manifest, {}, { tenantId: "t", config });
    expect(result).toEqual({ ok: true, output: { content: [{ type: "text", text: "peek done after 2 calls" }] } });
    expect(fs.readFileSync(log, "utf8")).toBe("peek\npeek\n");
  }, 30_000);
});

describe("splitCommandLine", () => {
  it("splits on whitespace, groups quotes, honours backslashes, runs no shell", () => {
    expect(splitCommandLine(`node  "/a b/server.js" --root '/tmp/x y' a\\ b $HOME`)).toEqual(["node", "/a b/server.js", "--root", "/tmp/x y", "a b", "$HOME"]);
    expect(() => splitCommandLine(`node "unclosed`)).toThrow(/unclosed quote/);
  });
});
