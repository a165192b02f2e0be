import { describe, expect, it } from "vitest";
import { contentItemsOf } from "@/lib/doors/mcp/content";

describe("contentItemsOf", () => {
  it("turns an upstream MCP tool's content output (resources flattened) back into MCP content items", () => {
    expect(
      contentItemsOf({
        content: [
          { type: "text", text: "hello" },
          { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
          { type: "resource", uri: "test://a", mimeType: "text/plain", text: "body" },
          { type: "resource", uri: "test://b", blob: "AAEC" },
          { type: "resource_link", uri: "test://c", name: "c" },
        ],
      }),
    ).toEqual([
      { type: "text", text: "hello" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      { type: "resource", resource: { uri: "test://a", mimeType: "text/plain", text: "body" } },
      { type: "resource", resource: { uri: "test://b", blob: "AAEC" } },
      { type: "resource_link", uri: "test://c", name: "c" },
    ]);
  });

  it("takes MCP's own shape of an embedded resource", () => {
    expect(contentItemsOf({ content: [{ type: "resource", resource: { uri: "test://r", text: "t" } }] })).toEqual([{ type: "resource", resource: { uri: "test://r", text: "t" } }]);
  });

  it("leaves every other output to be answered as JSON", () => {
    for (const output of [null, "text", [], { content: [] }, { content: [{ type: "text", text: "x" }], extra: 1 }, { content: [{ type: "video", data: "x" }] }, { content: [{ type: "image", data: "x" }] }, { content: "x" }]) {
      expect(contentItemsOf(output)).toBeNull();
    }
  });
});
