import { describe, expect, it } from "vitest";
import { fieldId, issuesAt, issuesExactlyAt, pointerSegments, toPointer, unplacedIssues } from "@/lib/client/issues";
import { ApiError, apiUrl, toApiError } from "@/lib/client/api";

const issues = [
  { path: "/definition/name", message: "is required" },
  { path: "/definition/parameters/city", message: "must be a string" },
  { path: "/definition", message: "has an unknown field" },
  { path: "/definitions", message: "a sibling, not a child" },
];

describe("issuesAt", () => {
  it("returns the issues at or below a prefix with paths relative to it", () => {
    expect(issuesAt(issues, "/definition")).toEqual([
      { path: "/name", message: "is required" },
      { path: "/parameters/city", message: "must be a string" },
      { path: "", message: "has an unknown field" },
    ]);
    expect(issuesAt(issues, "/definition/parameters/")).toEqual([{ path: "/city", message: "must be a string" }]);
    expect(issuesAt(issues, "")).toEqual(issues);
    expect(issuesAt(undefined, "/x")).toEqual([]);
  });

  it("exact and unplaced issues", () => {
    expect(issuesExactlyAt(issues, "/definition/name")).toEqual([issues[0]]);
    expect(unplacedIssues(issues, ["/definition/name", "/definition/parameters"])).toEqual([issues[2], issues[3]]);
  });

  it("JSON pointers round-trip with escapes, and field ids are DOM-safe", () => {
    expect(pointerSegments("/a~1b/c~0d/0")).toEqual(["a/b", "c~d", "0"]);
    expect(toPointer(["a/b", "c~d", 0])).toBe("/a~1b/c~0d/0");
    expect(fieldId("form", "/a b/0")).toBe("form-a_b-0");
  });
});

describe("the API client's error", () => {
  it("is built from the error envelope with its issues and request id", () => {
    const error = toApiError(400, { error: { code: "validation-failed", message: "bad manifest", details: { issues: [{ path: "/id", message: "bad" }, { nope: 1 }] }, requestId: "r-1" } });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: "validation-failed", message: "bad manifest", issues: [{ path: "/id", message: "bad" }], requestId: "r-1" });
  });
  it("says so when a response has no envelope", () => {
    expect(toApiError(502, "<html>", "r-2")).toMatchObject({ status: 502, code: "unexpected-response", requestId: "r-2" });
  });
  it("prefixes /v1 and drops empty query values", () => {
    expect(apiUrl("/tools", { q: "weather", limit: 10, cursor: undefined, empty: "" })).toBe("/v1/tools?q=weather&limit=10");
    expect(apiUrl("/v1/projects")).toBe("/v1/projects");
  });
});
