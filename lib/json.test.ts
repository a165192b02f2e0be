import { describe, expect, it } from "vitest";
import { RawJson, stringifyResponse } from "@/lib/json";

describe("stringifyResponse", () => {
  it("writes a stored document exactly as stored, nested at any depth", () => {
    const stored = '{"b":1,  "a":[1.50, "x"]}';
    expect(stringifyResponse({ data: [{ manifest: new RawJson(stored), n: 1 }], next: null })).toBe(`{"data":[{"manifest":${stored},"n":1}],"next":null}`);
  });

  it("is JSON.stringify for a body without stored documents", () => {
    const body = { data: [{ id: "a", tags: ["x"], at: new Date(0) }], cursor: "c" };
    expect(stringifyResponse(body)).toBe(JSON.stringify(body));
  });

  it("outside a response a stored document is its parsed value", () => {
    expect(JSON.stringify({ m: new RawJson('{"a":1}') })).toBe('{"m":{"a":1}}');
  });
});
