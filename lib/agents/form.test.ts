import { describe, expect, it } from "vitest";
import { describeParameterForm, humanize } from "./form";

describe("humanize", () => {
  it.each([
    ["client", "Client"],
    ["maxResults", "Max results"],
    ["max_results", "Max results"],
    ["due_date2", "Due date2"],
    ["apiURL", "Api URL"],
    ["URLPath", "URL path"],
    ["_private", "Private"],
  ])("%s → %s", (name, label) => {
    expect(humanize(name)).toBe(label);
  });
});

describe("describeParameterForm", () => {
  it("describes one field per parameter, in order, with its control", () => {
    const form = describeParameterForm({
      parameters: [
        { name: "client", type: "string", description: "Who the work is for" },
        { name: "maxResults", type: "number", default: 10 },
        { name: "strict", type: "boolean", required: false },
        { name: "dueDate", type: "date", required: true, default: "2024-06-30" },
      ],
    });
    expect(form).toEqual({
      fields: [
        { name: "client", label: "Client", kind: "text", type: "string", inputMode: "text", required: true, description: "Who the work is for" },
        { name: "maxResults", label: "Max results", kind: "number", type: "number", inputMode: "decimal", required: true, default: 10 },
        { name: "strict", label: "Strict", kind: "checkbox", type: "boolean", required: false },
        { name: "dueDate", label: "Due date", kind: "date", type: "date", placeholder: "YYYY-MM-DD", required: true, default: "2024-06-30" },
      ],
    });
  });

  it("keeps falsy defaults", () => {
    const form = describeParameterForm({ parameters: [{ name: "on", type: "boolean", default: false }] });
    expect(form.fields[0].default).toBe(false);
  });

  it("describes an empty form without parameters", () => {
    expect(describeParameterForm({})).toEqual({ fields: [] });
  });
});
