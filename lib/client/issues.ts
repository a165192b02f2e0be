import type { Issue } from "@/lib/client/api";

/**
 * The issues at or below `pathPrefix` (a JSON pointer such as `/definition/parameters`), with their paths made
 * relative to it: `/definition/parameters/city` under `/definition/parameters` becomes `/city`, and the prefix
 * itself becomes `""`. The empty prefix returns every issue unchanged.
 */
export function issuesAt(issues: readonly Issue[] | undefined, pathPrefix: string): Issue[] {
  const prefix = pathPrefix.replace(/\/+$/, "");
  if (!issues) return [];
  if (prefix === "") return [...issues];
  return issues.flatMap((issue) => {
    if (issue.path === prefix) return [{ path: "", message: issue.message }];
    if (issue.path.startsWith(`${prefix}/`)) return [{ path: issue.path.slice(prefix.length), message: issue.message }];
    return [];
  });
}

/** The issues whose path is exactly `path` (what a single field shows beside itself). */
export function issuesExactlyAt(issues: readonly Issue[] | undefined, path: string): Issue[] {
  return (issues ?? []).filter((issue) => issue.path === path);
}

/** The issues that none of `fieldPaths` (nor a field below one of them) shows: a form lists these above itself. */
export function unplacedIssues(issues: readonly Issue[] | undefined, fieldPaths: readonly string[]): Issue[] {
  return (issues ?? []).filter((issue) => !fieldPaths.some((path) => issue.path === path || (path !== "" && issue.path.startsWith(`${path}/`))));
}

/** `/a~1b/0` → `["a/b", "0"]` (RFC 6901). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer.replace(/^\//, "").split("/").map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** `["a/b", 0]` → `/a~1b/0` (RFC 6901). */
export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** A DOM id for the field at `path` under `idPrefix`, e.g. `tool-form` + `/city` → `tool-form--city`. */
export function fieldId(idPrefix: string, path: string): string {
  return `${idPrefix}-${pointerSegments(path).map((segment) => segment.replace(/[^A-Za-z0-9_-]/g, "_")).join("-")}`;
}
