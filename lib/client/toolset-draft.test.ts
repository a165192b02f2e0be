import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/client/api";
import { defaultRange, draftFromToolset, draftToBody, emptyDraft, newRow, resolutionOf, toolsetIssues } from "@/lib/client/toolset-draft";
import type { Toolset } from "@/lib/client/toolset-types";

const toolset: Toolset = {
  id: "t1",
  projectId: "p1",
  name: "support",
  description: null,
  tools: [
    { id: "acme.search", version: "^1" },
    { id: "acme.refund", version: "^3" },
  ],
  agents: [{ id: "triage", version: "*" }],
  resolved: {
    tools: [
      { id: "acme.search", range: "^1", version: "1.4.2" },
      { id: "acme.refund", range: "^3", version: null },
    ],
    agents: [{ id: "triage", range: "*", version: "2.0.0" }],
  },
  mcpPath: "/v1/mcp/toolsets/t1",
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
};

describe("draftToBody", () => {
  it("creates with the project, trimmed values, rows in order (blank ones too) and no empty description", () => {
    const draft = { ...emptyDraft(), name: " support ", tools: [newRow(" acme.search ", " ^1 "), newRow()] };
    expect(draftToBody(draft, { projectId: "p1" })).toEqual({ name: "support", projectId: "p1", tools: [{ id: "acme.search", version: "^1" }, { id: "", version: "" }], agents: [] });
  });

  it("edits without the project and clears an emptied description", () => {
    const draft = { ...draftFromToolset({ ...toolset, description: "old" }), description: "  " };
    expect(draftToBody(draft)).toEqual({ name: "support", description: null, tools: toolset.tools, agents: toolset.agents });
    expect(draftToBody({ ...draft, description: " For support " })).toMatchObject({ description: "For support" });
  });
});

describe("draftFromToolset", () => {
  it("prefills every reference as a row with its own key", () => {
    const draft = draftFromToolset(toolset);
    expect(draft.tools.map(({ id, version }) => ({ id, version }))).toEqual(toolset.tools);
    expect(new Set([...draft.tools, ...draft.agents].map((row) => row.key)).size).toBe(3);
    expect(draft.description).toBe("");
  });
});

describe("toolsetIssues", () => {
  it("returns the API's issues, and puts a 409 without issues at the name", () => {
    const invalid = new ApiError({ status: 400, code: "invalid-request", message: "invalid", issues: [{ path: "/tools/0/version", message: "is not a semver range" }] });
    expect(toolsetIssues(invalid)).toEqual([{ path: "/tools/0/version", message: "is not a semver range" }]);
    const taken = new ApiError({ status: 409, code: "toolset-name-taken", message: "a toolset named support exists" });
    expect(toolsetIssues(taken)).toEqual([{ path: "/name", message: "a toolset named support exists" }]);
    expect(toolsetIssues(new ApiError({ status: 500, code: "internal", message: "boom" }))).toEqual([]);
    expect(toolsetIssues(new Error("x"))).toEqual([]);
  });
});

describe("resolutionOf", () => {
  it("finds a reference's resolution by position, else by id and range", () => {
    expect(resolutionOf(toolset, "tools", 0)?.version).toBe("1.4.2");
    expect(resolutionOf(toolset, "tools", 1)?.version).toBeNull();
    expect(resolutionOf(toolset, "agents", 0)?.version).toBe("2.0.0");
    const shuffled = { ...toolset, resolved: { ...toolset.resolved, tools: [...toolset.resolved.tools].reverse() } };
    expect(resolutionOf(shuffled, "tools", 0)?.version).toBe("1.4.2");
    expect(resolutionOf(toolset, "tools", 5)).toBeUndefined();
  });
});

describe("defaultRange", () => {
  it("takes later compatible versions of the latest", () => {
    expect(defaultRange("1.4.2")).toBe("^1.4.2");
    expect(defaultRange("")).toBe("*");
  });
});
