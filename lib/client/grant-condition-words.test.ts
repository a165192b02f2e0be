import { describe, expect, it } from "vitest";
import { conditionFields, conditionSchema, type ConditionRow } from "@/lib/client/grant-condition";
import { grantConditionInWords } from "@/lib/client/grant-condition-words";

describe("grantConditionInWords", () => {
  it("says every call for no condition", () => {
    expect(grantConditionInWords(null)).toEqual({ words: "every call", readable: true });
  });

  it("reads consts, enums and bounds of required and optional properties", () => {
    const condition = { type: "object", required: ["amount", "currency"], properties: { amount: { type: "number", maximum: 100 }, currency: { enum: ["EUR", "USD"] }, memo: { const: "refund" } } };
    expect(grantConditionInWords(condition)).toEqual({ words: "calls where amount is a number and ≤ 100; currency is one of “EUR”, “USD”; memo is “refund” (when given)", readable: true });
  });

  it("falls back to a JSON Schema for shapes it cannot say", () => {
    expect(grantConditionInWords({ anyOf: [{ type: "object" }] }).readable).toBe(false);
    expect(grantConditionInWords({ type: "object", properties: { word: { not: { minLength: 2 } } } }).readable).toBe(false);
    expect(grantConditionInWords({ type: "object", additionalProperties: false, properties: { word: { const: "x" } } }).readable).toBe(false);
  });

  it("reads the conditions the approval inbox's form builds", () => {
    const fields = conditionFields({ type: "object", properties: { payee: { type: "string" }, amount: { type: "number" } } });
    const rows: ConditionRow[] = [
      { field: "payee", operator: "starts-with", value: "acme.(eu)" },
      { field: "payee", operator: "not-equals", value: "acme.(eu)x" },
      { field: "amount", operator: "at-most", value: "100" },
    ];
    const { condition, issues } = conditionSchema(rows, fields);
    expect(issues).toEqual([]);
    expect(grantConditionInWords(condition)).toEqual({ words: "calls where payee is a string and starts with “acme.(eu)” and is a string and is not “acme.(eu)x”; amount is a number and ≤ 100", readable: true });
  });
});
