import { describe, expect, it } from "vitest";
import { formability, isPathInForm, issuesToErrorTree, jsonParseError, parsePointer, toPointer } from "@/components/forms/schema-support";

describe("JSON pointers", () => {
  it("decodes and encodes ~0 and ~1", () => {
    expect(parsePointer("")).toEqual([]);
    expect(parsePointer("/a~1b/~0c/0")).toEqual(["a/b", "~c", "0"]);
    expect(toPointer(["a/b", "~c", 0])).toBe("/a~1b/~0c/0");
  });

  it("places issues at their fields, the root issues at the root", () => {
    expect(issuesToErrorTree([
      { path: "/address/city", message: "required field \"city\" is missing" },
      { path: "/address/city", message: "second" },
      { path: "/tags/1", message: "too long" },
      { path: "", message: "not an object" },
    ])).toEqual({ __errors: ["not an object"], address: { city: { __errors: ["required field \"city\" is missing", "second"] } }, tags: { 1: { __errors: ["too long"] } } });
  });
});

describe("formability", () => {
  const address = { type: "object", properties: { city: { type: "string" }, zip: { type: "string", pattern: "^[0-9]+$" } }, required: ["city"] };

  it("accepts objects, nested objects, arrays, enums, formats, bounds and local refs", () => {
    expect(formability({
      type: "object",
      $defs: { address },
      properties: {
        name: { type: "string", format: "email" },
        count: { type: "integer", minimum: 1, maximum: 10, default: 3 },
        unit: { enum: ["metric", "imperial"] },
        home: { $ref: "#/$defs/address" },
        tags: { type: "array", items: { type: "string" } },
        note: { type: ["string", "null"] },
        extra: { type: "object", additionalProperties: { type: "number" } },
      },
    })).toEqual({ formable: true });
  });

  it("accepts oneOf with a discriminator and refuses it without", () => {
    const branches = [{ type: "object", properties: { kind: { const: "a" } } }, { type: "object", properties: { kind: { const: "b" } } }];
    expect(formability({ type: "object", properties: { x: { type: "object", discriminator: { propertyName: "kind" }, oneOf: branches } } })).toEqual({ formable: true });
    expect(formability({ type: "object", properties: { x: { anyOf: [{ type: "string" }, { type: "number" }] } } })).toEqual({ formable: false, reasons: ["/properties/x: anyOf without a discriminator"] });
  });

  it("refuses what a form cannot express, saying where", () => {
    const result = formability({
      type: "object",
      $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" } } } },
      properties: { tree: { $ref: "#/$defs/node" }, map: { type: "object", patternProperties: { "^x": { type: "string" } } }, pair: { type: "array", prefixItems: [{ type: "string" }], items: false }, any: {}, list: { type: "array" }, both: { type: ["string", "number"] }, remote: { $ref: "https://example.com/s.json" } },
    });
    expect(result.formable).toBe(false);
    expect(!result.formable && result.reasons).toEqual([
      "/properties/tree/properties/child: $ref #/$defs/node refers to itself (a cycle)",
      "/properties/map: patternProperties",
      "/properties/pair: prefixItems",
      "/properties/any: no type",
      "/properties/list: an array without items",
      "/properties/both: several types (string, number)",
      "/properties/remote: $ref https://example.com/s.json is not a local reference",
    ]);
    expect(formability({})).toEqual({ formable: false, reasons: ["the schema accepts any value"] });
    expect(formability({ type: "object", properties: {} })).toEqual({ formable: true });
  });
});

describe("isPathInForm", () => {
  const schema = { type: "object", $defs: { a: { type: "object", properties: { city: { type: "string" } } } }, properties: { address: { $ref: "#/$defs/a" }, tags: { type: "array", items: { type: "string" } }, meta: { type: "object", additionalProperties: { type: "string" } } } };
  it("follows properties, items, additionalProperties and refs", () => {
    expect(isPathInForm(schema, "")).toBe(true);
    expect(isPathInForm(schema, "/address/city")).toBe(true);
    expect(isPathInForm(schema, "/tags/3")).toBe(true);
    expect(isPathInForm(schema, "/meta/anything")).toBe(true);
    expect(isPathInForm(schema, "/address/street")).toBe(false);
    expect(isPathInForm(schema, "/unknown")).toBe(false);
  });
});

describe("jsonParseError", () => {
  it("is null for valid JSON and names the line and column otherwise", () => {
    expect(jsonParseError('{"a": 1}')).toBeNull();
    const message = jsonParseError('{\n  "a": 1,\n  "b": }');
    expect(message).toBe("Line 3, column 8: expected a value, found \"}\"");
    expect(jsonParseError("{\"a\": 1,}")).toBe("Line 1, column 9: expected a property name in double quotes, found \"}\"");
    expect(jsonParseError("[1, 2")).toBe("Line 1, column 6: expected \",\" or \"]\", found the end of the text");
    expect(jsonParseError(String.raw`{"a": "x\q"}`)).toMatch(/^Line 1, column 10: expected an escape/);
    expect(jsonParseError("")).toMatch(/empty/);
    expect(jsonParseError(String.raw`[1e5, -0.5, true, null, "\u00e9\n"]`)).toBeNull();
    expect(jsonParseError(String.raw`["\u00g9"]`)).toMatch(/^Line 1, column 4: expected four hex digits/);
  });
});
