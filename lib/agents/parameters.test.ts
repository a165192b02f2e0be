import { describe, expect, it } from "vitest";
import { checkParameters, isDateValue, parameterValueProblem, renderPreview, type RenderableDefinition } from "./parameters";
import type { PromptParameter } from "./validate-agent";

const declared: PromptParameter[] = [
  { name: "client", type: "string" },
  { name: "limit", type: "number", default: 10 },
  { name: "strict", type: "boolean", required: false },
  { name: "deadline", type: "date", required: true },
];

describe("isDateValue", () => {
  it.each(["2024-02-29", "2024-02-29T10:00Z", "2024-02-29T10:00:05.123Z", "2024-02-29T23:59:59+05:30", "2024-02-29t10:00:00z"])(
    "accepts %s",
    (value) => expect(isDateValue(value)).toBe(true),
  );

  it.each(["2023-02-29", "2024-13-01", "2024-1-01", "29/02/2024", "2024-02-29T10:00", "2024-02-29T24:00Z", "2024-02-29 10:00Z", "", 20240229])(
    "refuses %s",
    (value) => expect(isDateValue(value)).toBe(false),
  );
});

describe("parameterValueProblem", () => {
  it.each([
    ["string", "", null],
    ["string", 1, "must be a string"],
    ["number", 0, null],
    ["number", -1.5, null],
    ["number", Number.NaN, "must be a finite number"],
    ["number", Number.POSITIVE_INFINITY, "must be a finite number"],
    ["number", "3", "must be a finite number"],
    ["boolean", false, null],
    ["boolean", "false", "must be a boolean (true or false)"],
    ["boolean", 0, "must be a boolean (true or false)"],
    ["date", "2024-01-31", null],
    ["date", "2024-01-32", "must be a date (YYYY-MM-DD)"],
    ["date", new Date(), "must be a date (YYYY-MM-DD)"],
  ] as const)("%s %j → %s", (type, value, problem) => {
    expect(parameterValueProblem(type, value)).toBe(problem);
  });
});

describe("checkParameters", () => {
  it("accepts supplied values, applies defaults and sets omitted optional parameters to null", () => {
    expect(checkParameters(declared, { client: "Acme", deadline: "2024-06-30" })).toEqual({
      ok: true,
      values: { client: "Acme", limit: 10, strict: null, deadline: "2024-06-30" },
    });
  });

  it("prefers a supplied value over the default", () => {
    const result = checkParameters(declared, { client: "Acme", deadline: "2024-06-30", limit: 3, strict: false });
    expect(result).toEqual({ ok: true, values: { client: "Acme", limit: 3, strict: false, deadline: "2024-06-30" } });
  });

  it("treats undefined as no parameters", () => {
    expect(checkParameters([{ name: "x", type: "string", required: false }], undefined)).toEqual({ ok: true, values: { x: null } });
    expect(checkParameters([], undefined)).toEqual({ ok: true, values: {} });
  });

  it.each([null, "x", 3, ["a"]])("refuses %j as the parameters object", (given) => {
    expect(checkParameters(declared, given)).toEqual({ ok: false, issues: [{ path: "/parameters", message: "must be an object" }] });
  });

  it("reports a missing required parameter (required defaults to true), also when null", () => {
    expect(checkParameters(declared, { deadline: "2024-06-30", client: null })).toEqual({
      ok: false,
      issues: [{ path: "/parameters/client", message: "missing required parameter" }],
    });
  });

  it("reports wrong types with the expected type", () => {
    const result = checkParameters(declared, { client: 1, limit: "many", strict: "yes", deadline: "tomorrow" });
    expect(result).toEqual({
      ok: false,
      issues: [
        { path: "/parameters/client", message: "must be a string" },
        { path: "/parameters/limit", message: "must be a finite number" },
        { path: "/parameters/strict", message: "must be a boolean (true or false)" },
        { path: "/parameters/deadline", message: "must be a date (YYYY-MM-DD)" },
      ],
    });
  });

  it("reports unknown parameters with the declared names, escaping the pointer", () => {
    const result = checkParameters(declared, { client: "A", deadline: "2024-06-30", "a/b": 1 });
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "/parameters/a~1b", message: 'unknown parameter "a/b" (declared: client, limit, strict, deadline)' }],
    });
  });

  it("reports every problem at once", () => {
    const result = checkParameters(declared, { limit: Number.NaN, extra: true });
    expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual([
      "/parameters/client",
      "/parameters/limit",
      "/parameters/deadline",
      "/parameters/extra",
    ]);
  });

  it("does not take inherited properties as values", () => {
    const given = Object.create({ client: "inherited" }) as Record<string, unknown>;
    given.deadline = "2024-06-30";
    expect(checkParameters(declared, given)).toEqual({
      ok: false,
      issues: [{ path: "/parameters/client", message: "missing required parameter" }],
    });
  });
});

describe("renderPreview", () => {
  const definition: RenderableDefinition = {
    id: "acme.helper",
    name: "Helper",
    version: "1.0.0",
    instructions: "For {{ client }} by {{ deadline }}{% if strict %} (strict){% endif %}, up to {{ limit }}. Turn {{ conversation.turn }} on {{ today }}.",
    parameters: declared,
  };
  const now = new Date("2024-05-01T12:00:00Z");

  it("checks parameters, then renders with defaults and auto-vars", () => {
    expect(renderPreview(definition, { client: "Acme", deadline: "2024-06-30", strict: true }, { now })).toEqual({
      ok: true,
      rendered: "For Acme by 2024-06-30 (strict), up to 10. Turn 1 on 2024-05-01.",
      parameters: { client: "Acme", limit: 10, strict: true, deadline: "2024-06-30" },
    });
  });

  it("uses the conversation it is given", () => {
    const result = renderPreview(definition, { client: "A", deadline: "2024-06-30" }, { now, conversation: { id: "c", turn: 4 } });
    expect(result.ok && result.rendered).toContain("Turn 4");
  });

  it("returns parameter issues without rendering", () => {
    expect(renderPreview(definition, { client: "A" }, { now })).toEqual({
      ok: false,
      issues: [{ path: "/parameters/deadline", message: "missing required parameter" }],
    });
  });

  it("returns template problems as issues at /instructions with line and column", () => {
    const broken = { ...definition, instructions: "ok\n{{ client | shout }}" };
    expect(renderPreview(broken, { client: "A", deadline: "2024-06-30" })).toEqual({
      ok: false,
      issues: [{ path: "/instructions", message: 'line 2, column 1: unknown filter "shout"' }],
    });
    const undeclared = { ...definition, instructions: "Hi {{ someone }}" };
    expect(renderPreview(undeclared, { client: "A", deadline: "2024-06-30" })).toEqual({
      ok: false,
      issues: [{ path: "/instructions", message: 'line 1, column 7: variable "someone" has no value' }],
    });
  });

  it("renders a definition without parameters", () => {
    const plain = { id: "a", name: "A", version: "1.0.0", instructions: "I am {{ agent.name }} {{ agent.version }}." };
    expect(renderPreview(plain, undefined)).toMatchObject({ ok: true, rendered: "I am A 1.0.0.", parameters: {} });
  });
});
