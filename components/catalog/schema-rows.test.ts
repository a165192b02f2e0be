import { describe, expect, it } from "vitest";
import { schemaRows } from "@/components/catalog/schema-rows";

describe("schemaRows", () => {
  it("lists properties with type, required, default, enum, constraints and description, nested ones deeper", () => {
    const rows = schemaRows({
      type: "object",
      required: ["address", "unit"],
      $defs: { address: { type: "object", required: ["city"], properties: { city: { type: "string", description: "City name" }, zip: { type: "string", pattern: "^[0-9]{5}$" } } } },
      properties: {
        address: { $ref: "#/$defs/address" },
        unit: { type: "string", enum: ["metric", "imperial"], default: "metric" },
        count: { type: "integer", minimum: 1, maximum: 10 },
        email: { type: "string", format: "email" },
        items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
      },
    });
    expect(rows.map((row) => [row.path, row.depth, row.type, row.required])).toEqual([
      ["/address", 0, "object", true],
      ["/address/city", 1, "string", true],
      ["/address/zip", 1, "string", false],
      ["/unit", 0, "string", true],
      ["/count", 0, "integer", false],
      ["/email", 0, "string (email)", false],
      ["/items", 0, "array of object", false],
      ["/items/[]/sku", 1, "string", false],
    ]);
    expect(rows[1].description).toBe("City name");
    expect(rows[2].constraints).toEqual(["matches ^[0-9]{5}$"]);
    expect(rows[3]).toMatchObject({ defaultValue: '"metric"', enumValues: ['"metric"', '"imperial"'] });
    expect(rows[4].constraints).toEqual(["≥ 1", "≤ 10"]);
  });

  it("shows a $ref cycle once", () => {
    const rows = schemaRows({ type: "object", $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" } } } }, properties: { tree: { $ref: "#/$defs/node" } } });
    expect(rows.map((row) => [row.path, row.type])).toEqual([["/tree", "object"], ["/tree/child", "node (see above)"]]);
  });
});
