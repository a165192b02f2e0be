import { describe, expect, it } from "vitest";
import { conditionFields, conditionInWords, conditionSchema, operatorsFor, prefixPattern, type ConditionRow } from "@/lib/client/grant-condition";
import { getValidator } from "@/lib/tools/json-schema";

const input = {
  type: "object",
  required: ["word"],
  properties: {
    word: { type: "string", title: "Word" },
    amount: { type: "number" },
    count: { type: "integer" },
    urgent: { type: "boolean" },
    currency: { enum: ["EUR", "USD"] },
    tags: { type: "array", items: { type: "string" } },
    meta: { type: "object" },
  },
};
const fields = conditionFields(input);
const matches = (condition: object | null, args: unknown) => getValidator(condition as Record<string, unknown>)(args).ok;

describe("conditionFields", () => {
  it("lists the scalar top-level properties with their kind, enum options and title; arrays and objects are left out", () => {
    expect(fields).toEqual([
      { name: "word", kind: "string", title: "Word" },
      { name: "amount", kind: "number" },
      { name: "count", kind: "integer" },
      { name: "urgent", kind: "boolean" },
      { name: "currency", kind: "string", options: ["EUR", "USD"] },
    ]);
    expect(conditionFields({ type: "object" })).toEqual([]);
    expect(conditionFields(null)).toEqual([]);
  });
  it("offers the operators of each kind", () => {
    expect(operatorsFor("string")).toEqual(["equals", "not-equals", "one-of", "starts-with"]);
    expect(operatorsFor("number")).toEqual(["equals", "not-equals", "one-of", "at-most", "at-least"]);
    expect(operatorsFor("boolean")).toEqual(["equals", "not-equals"]);
  });
});

describe("conditionSchema", () => {
  it("maps each operator to its JSON Schema keyword, typed per the field", () => {
    const rows: ConditionRow[] = [
      { field: "amount", operator: "at-most", value: "100" },
      { field: "count", operator: "at-least", value: "2" },
      { field: "currency", operator: "one-of", value: "EUR, USD" },
      { field: "urgent", operator: "not-equals", value: "true" },
      { field: "word", operator: "starts-with", value: "a.b" },
    ];
    expect(conditionSchema(rows, fields)).toEqual({
      issues: [],
      condition: {
        type: "object",
        properties: {
          amount: { type: "number", maximum: 100 },
          count: { type: "integer", minimum: 2 },
          currency: { type: "string", enum: ["EUR", "USD"] },
          urgent: { type: "boolean", not: { const: true } },
          word: { type: "string", pattern: "^a\\.b" },
        },
        required: ["amount", "count", "currency", "urgent", "word"],
      },
    });
    expect(conditionSchema([{ field: "amount", operator: "equals", value: " 7.5 " }], fields).condition?.properties).toEqual({ amount: { type: "number", const: 7.5 } });
  });

  it("several rows on one field all apply; the server's engine passes what is inside and refuses what is outside", () => {
    const { condition } = conditionSchema(
      [
        { field: "amount", operator: "at-least", value: "10" },
        { field: "amount", operator: "at-most", value: "100" },
        { field: "word", operator: "starts-with", value: "(x)+" },
      ],
      fields,
    );
    expect(condition?.properties.amount).toEqual({ allOf: [{ type: "number", minimum: 10 }, { type: "number", maximum: 100 }] });
    expect(matches(condition, { word: "(x)+ yes", amount: 100 })).toBe(true);
    expect(matches(condition, { word: "(x)+ yes", amount: 100.5 })).toBe(false);
    expect(matches(condition, { word: "(x)+ yes", amount: 9 })).toBe(false);
    expect(matches(condition, { word: "xx", amount: 50 })).toBe(false);
    expect(matches(condition, { word: "a(x)+", amount: 50 })).toBe(false);
    // A field the condition names must be there: a call without it asks again.
    expect(matches(condition, { word: "(x)+" })).toBe(false);
  });

  it("an escaped prefix matches itself literally, whatever characters it has", () => {
    for (const prefix of ["a.b", "^$", "[x]{2}", "a|b", "\\d+", "x/y?", "(", "ü*"]) {
      const { condition } = conditionSchema([{ field: "word", operator: "starts-with", value: prefix }], fields);
      expect(matches(condition, { word: `${prefix}rest` }), prefix).toBe(true);
      expect(matches(condition, { word: `-${prefix}` }), prefix).toBe(false);
    }
    expect(prefixPattern("1.5")).toBe("^1\\.5");
  });

  it("reports each incomplete row by its index and builds nothing then; no rows is no condition", () => {
    const { condition, issues } = conditionSchema(
      [
        { field: "", operator: "equals", value: "x" },
        { field: "amount", operator: "at-most", value: "lots" },
        { field: "count", operator: "equals", value: "1.5" },
        { field: "urgent", operator: "equals", value: "yes" },
        { field: "word", operator: "at-most", value: "3" },
        { field: "currency", operator: "one-of", value: "EUR,," },
        { field: "word", operator: "starts-with", value: "" },
        { field: "gone", operator: "equals", value: "1" },
      ],
      fields,
    );
    expect(condition).toBeNull();
    expect(issues).toEqual([
      { row: 0, message: "choose a field" },
      { row: 1, message: "must be a number" },
      { row: 2, message: "must be a whole number" },
      { row: 3, message: "must be true or false" },
      { row: 4, message: "“is at most” does not apply to a string" },
      { row: 5, message: "give one or more values, separated by commas" },
      { row: 6, message: "give the prefix" },
      { row: 7, message: "the input has no field gone" },
    ]);
    expect(conditionSchema([], fields)).toEqual({ condition: null, issues: [] });
  });
});

describe("conditionInWords", () => {
  it("says the rows with symbols, strings quoted", () => {
    expect(
      conditionInWords(
        [
          { field: "amount", operator: "at-most", value: "100" },
          { field: "currency", operator: "one-of", value: "EUR, USD" },
          { field: "word", operator: "starts-with", value: "ab" },
          { field: "urgent", operator: "not-equals", value: "true" },
        ],
        fields,
      ),
    ).toBe("amount ≤ 100 and currency in {“EUR”, “USD”} and word starts with “ab” and urgent ≠ true");
  });
});
