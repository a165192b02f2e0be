/**
 * The toolset form's state and what it sends. Rows are sent in the order shown, blank ones included, so that an
 * issue at `/tools/2/version` names the third tool row on screen.
 */
import { isApiError, type Issue } from "@/lib/client/api";
import type { Toolset, ToolsetBody, ToolsetResolution } from "@/lib/client/toolset-types";

export type ReferenceKind = "tools" | "agents";

/** One row of the form: `key` keeps React's identity of a row while rows are added and removed. */
export type ReferenceRow = { key: number; id: string; version: string };

export type ToolsetDraft = { name: string; description: string; tools: ReferenceRow[]; agents: ReferenceRow[] };

let nextKey = 1;

/** A blank row. */
export function newRow(id = "", version = ""): ReferenceRow {
  return { key: nextKey++, id, version };
}

/** A new toolset: a name to give and one blank tool row. */
export function emptyDraft(): ToolsetDraft {
  return { name: "", description: "", tools: [newRow()], agents: [] };
}

/** The form prefilled with a toolset's fields. */
export function draftFromToolset(toolset: Toolset): ToolsetDraft {
  return {
    name: toolset.name,
    description: toolset.description ?? "",
    tools: toolset.tools.map((ref) => newRow(ref.id, ref.version)),
    agents: toolset.agents.map((ref) => newRow(ref.id, ref.version)),
  };
}

/**
 * The body of POST /v1/toolsets (with `projectId`) or PATCH /v1/toolsets/{id} (without): values trimmed, an empty
 * description left out when creating and cleared (null) when editing.
 */
export function draftToBody(draft: ToolsetDraft, options: { projectId?: string } = {}): ToolsetBody {
  const refs = (rows: ReferenceRow[]) => rows.map((row) => ({ id: row.id.trim(), version: row.version.trim() }));
  const description = draft.description.trim();
  const creating = options.projectId !== undefined;
  return {
    name: draft.name.trim(),
    ...(description ? { description } : creating ? {} : { description: null }),
    ...(creating ? { projectId: options.projectId } : {}),
    tools: refs(draft.tools),
    agents: refs(draft.agents),
  };
}

/**
 * The issues a save failed with, each at the field it names. A 409 (the name is taken) names no field: it is put
 * at `/name`, where it belongs.
 */
export function toolsetIssues(error: unknown): Issue[] {
  if (!isApiError(error)) return [];
  if (error.issues.length) return error.issues;
  if (error.status === 409) return [{ path: "/name", message: error.message }];
  return [];
}

/** What the `index`th reference of `kind` resolves to now (by position, else by id and range). */
export function resolutionOf(toolset: Toolset, kind: ReferenceKind, index: number): ToolsetResolution | undefined {
  const ref = toolset[kind][index];
  const resolved = toolset.resolved?.[kind] ?? [];
  const atIndex = resolved[index];
  if (ref && atIndex && atIndex.id === ref.id) return atIndex;
  return ref ? resolved.find((item) => item.id === ref.id && item.range === ref.version) : undefined;
}

/** The default range for a picked tool or agent: `^<latest>`, so later minor and patch versions are taken. */
export function defaultRange(latestVersion: string): string {
  return latestVersion ? `^${latestVersion}` : "*";
}
