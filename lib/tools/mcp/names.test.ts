import { describe, expect, it } from "vitest";
import { toolIdsFor, toolNameFor } from "./names";

describe("MCP tool names", () => {
  it("keeps an id that is a valid name", () => {
    expect(toolNameFor("acme.verify-citation")).toBe("acme.verify-citation");
    expect(toolNameFor("current-time")).toBe("current-time");
    expect(toolIdsFor("acme.verify-citation")).toEqual(["acme.verify-citation"]);
  });

  it("escapes any other id reversibly", () => {
    for (const id of ["acme/tool", "Acme Tool", "café.ü", "a_b c", "x".repeat(129)]) {
      const name = toolNameFor(id);
      if (name === null) continue;
      expect(name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
      expect(toolIdsFor(name)).toContain(id);
    }
    expect(toolNameFor("acme/tool")).toBe("acme_2Ftool");
    expect(toolNameFor("a_b c")).toBe("a_5Fb_20c");
    expect(toolIdsFor("acme_2Ftool")).toEqual(["acme_2Ftool", "acme/tool"]);
  });

  it("lists no name for an id whose escaped form is too long", () => {
    expect(toolNameFor("é".repeat(50))).toBeNull();
    expect(toolNameFor("a".repeat(129))).toBe(null);
  });
});
