import { describe, expect, it } from "vitest";
import { conditionInWords } from "@/lib/client/grant-condition";

describe("conditionInWords", () => {
  it("says every call for no condition", () => {
    expect(conditionInWords(null)).toEqual({ words: "every call", readable: true });
  });

  it("reads consts, enums and bounds of required and optional properties", () => {
    const condition = { type: "object", required: ["amount", "currency"], properties: { amount: { type: "number", maximum: 100 }, currency: { enum: ["EUR", "USD"] }, memo: { const: "refund" } } };
    expect(conditionInWords(condition)).toEqual({ words: "calls where amount is a number and ≤ 100; currency is one of “EUR”, “USD”; memo is “refund” (when given)", readable: true });
  });

  it("falls back to a JSON Schema for shapes it cannot say", () => {
    expect(conditionInWords({ anyOf: [{ type: "object" }] }).readable).toBe(false);
    expect(conditionInWords({ type: "object", properties: { word: { not: { const: "x" } } } }).readable).toBe(false);
    expect(conditionInWords({ type: "object", additionalProperties: false, properties: { word: { const: "x" } } }).readable).toBe(false);
  });
});
