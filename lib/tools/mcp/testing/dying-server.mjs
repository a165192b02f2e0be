// A stdio MCP server for tests: each tool appends a line to the file named by argv[2], then the process exits
// before answering while the file has fewer than argv[3] lines (default 1), so a call dies in flight.
import fs from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const [log, dieUntil = "1"] = process.argv.slice(2);
const server = new McpServer({ name: "dying", version: "1.0.0" });
const handle = (name) => async () => {
  fs.appendFileSync(log, `${name}\n`);
  const lines = fs.readFileSync(log, "utf8").trim().split("\n").length;
  if (lines <= Number(dieUntil)) process.exit(1);
  return { content: [{ type: "text", text: `${name} done after ${lines} calls` }] };
};
server.registerTool("append", { description: "Appends (mutating)", annotations: { readOnlyHint: false } }, handle("append"));
server.registerTool("peek", { description: "Reads (read-only)", annotations: { readOnlyHint: true } }, handle("peek"));
await server.connect(new StdioServerTransport());
