import { describe, expect, it } from "vitest";
import { RawJson, sortedKeysJson, stringifyResponse } from "@/lib/json";

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

describe("sortedKeysJson", () => {
  it("sorts keys at every level, keeps array order, and leaves out undefined members as JSON.stringify does", () => {
    expect(sortedKeysJson({ z: { y: 1, x: [3, 1, { b: "é", a: true }] }, a: null, u: undefined })).toBe('{"a":null,"z":{"x":[3,1,{"a":true,"b":"é"}],"y":1}}');
    expect(sortedKeysJson([undefined, 1])).toBe("[null,1]");
    expect(sortedKeysJson(undefined)).toBe("null");
    const value = { b: [1, { d: 2, c: "x" }], a: { f: null, e: 1.5 } };
    expect(JSON.parse(sortedKeysJson(value))).toEqual(value);
  });
});
