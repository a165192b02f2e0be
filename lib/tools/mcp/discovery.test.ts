import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { discoveredTool } from "@/lib/tools/mcp/discovery";

const weather = {
  name: "Get Weather",
  description: "Weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" }, units: { enum: ["c", "f"] } }, required: ["city"] },
  annotations: { readOnlyHint: true, title: "Weather" },
} as Tool;
const discover = (tool: Tool) => discoveredTool("My Server", "https://mcp.example.com/mcp", { name: "weather-server" }, tool);

describe("discoveredTool's hash", () => {
  it("is the digest endpoints already stored for the same tool (re-discovery registers no new version)", () => {
    expect(discover(weather).hash).toBe("57fd54f5d206c6ea3853d1e568ff06cf3fb86a9f18e8d00625d310a645a8384b");
  });

  it("does not depend on the order of the server's keys, and changes with what defines the tool", () => {
    const reordered = { annotations: { title: "Weather", readOnlyHint: true }, inputSchema: { required: ["city"], properties: { units: { enum: ["c", "f"] }, city: { type: "string" } }, type: "object" }, description: "Weather for a city", name: "Get Weather" } as Tool;
    expect(discover(reordered).hash).toBe(discover(weather).hash);
    expect(discover({ ...weather, description: "Weather for a town" }).hash).not.toBe(discover(weather).hash);
    expect(discover({ ...weather, annotations: { title: "Weather" } }).hash).not.toBe(discover(weather).hash);
  });
});
