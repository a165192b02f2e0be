import { describe, expect, it } from "vitest";
import { fieldElementFor, fieldId, newAgentDraft, previewableParameters, setIn, suggestVersion, templateMarkers } from "./agent-draft";

describe("agent draft", () => {
  it("sets and removes values immutably, dropping an optional section left empty", () => {
    const draft = newAgentDraft();
    const withBudget = setIn(draft, ["budget", "maxSteps"], 4);
    expect(withBudget.budget).toEqual({ maxSteps: 4 });
    expect(draft.budget).toBeUndefined();
    expect(setIn(withBudget, ["budget", "maxSteps"], undefined)).not.toHaveProperty("budget");
    const withParam = setIn(draft, ["parameters", 0], { name: "a", type: "string" });
    expect(setIn(withParam, ["parameters", 0, "default"], "x").parameters).toEqual([{ name: "a", type: "string", default: "x" }]);
    expect(setIn(withParam, ["parameters", 0], undefined).parameters).toEqual([]);
  });

  it("previews only well-formed, distinct parameters", () => {
    expect(previewableParameters([{ name: "ok", type: "number", default: 2 }, { name: "", type: "string" }, { name: "ok", type: "string" }, { name: "b", type: "text" }]).map((p) => p.name)).toEqual(["ok"]);
  });

  it("maps a JSON pointer to the most specific field on the page", () => {
    expect(fieldId("/tools/0/version")).toBe("agent-field-tools-0-version");
    const present = new Set([fieldId("/budget"), fieldId("/parameters/1/name")]);
    const doc = { getElementById: (id: string) => (present.has(id) ? ({ id } as HTMLElement) : null) };
    expect(fieldElementFor("/budget/maxSteps", doc)?.id).toBe("agent-field-budget");
    expect(fieldElementFor("/parameters/1/name", doc)?.id).toBe("agent-field-parameters-1-name");
    expect(fieldElementFor("/guardrails/0", doc)).toBeNull();
  });

  it("reads template positions from structured issues and from messages", () => {
    expect(
      templateMarkers([
        { path: "/instructions", message: "line 3, column 7: unknown filter \"x\"" },
        { path: "/definition/instructions", message: "line 3, column 7: unknown filter \"x\"", line: 3, column: 7 } as never,
        { path: "/parameters/0/name", message: "line 1, column 1: nope" },
        { path: "/instructions", message: "must not be empty" },
      ]),
    ).toEqual([{ line: 3, column: 7, message: 'unknown filter "x"' }]);
  });

  it("suggests patch, minor or major from what changed", () => {
    const base = { ...newAgentDraft(), id: "a.b", name: "B", instructions: "Hi {{ who }}", parameters: [{ name: "who", type: "string" }], tools: [{ id: "t.x", version: "^1.0.0" }] };
    expect(suggestVersion(null, null, newAgentDraft())).toMatchObject({ version: "1.0.0", level: null });
    expect(suggestVersion(base, "1.2.3", { ...base, instructions: "Hello {{ who }}" })).toEqual({ version: "1.2.4", level: "patch", reasons: ["instructions changed"] });
    expect(suggestVersion(base, "1.2.3", { ...base, tools: [...base.tools, { id: "t.y", version: "1.0.0" }] })).toEqual({ version: "1.3.0", level: "minor", reasons: ['tool "t.y" added'] });
    expect(suggestVersion(base, "1.2.3", { ...base, parameters: [...base.parameters, { name: "n", type: "number", default: 1 }] })).toMatchObject({ version: "1.3.0", level: "minor" });
    expect(suggestVersion(base, "1.2.3", { ...base, budget: { maxSteps: 2 } })).toEqual({ version: "1.3.0", level: "minor", reasons: ["budget added"] });
    expect(suggestVersion(base, "1.2.3", { ...base, parameters: [{ name: "who", type: "date" }] })).toEqual({ version: "2.0.0", level: "major", reasons: ['parameter "who" changed'] });
    expect(suggestVersion(base, "1.2.3", { ...base, parameters: [] })).toMatchObject({ version: "2.0.0", reasons: ['parameter "who" removed'] });
    expect(suggestVersion(base, "1.2.3", base)).toEqual({ version: "1.2.4", level: null, reasons: [] });
  });
});
