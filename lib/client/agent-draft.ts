/**
 * The agent editor's model: a draft is the definition itself (plain JSON, exactly what the raw JSON view shows
 * and what is registered), edited through immutable updates. Also: the suggested next version, the element id
 * of the field a JSON pointer names, and the editor markers of template problems.
 */
import semver from "semver";
import type { Issue } from "@/lib/client/api";
import type { AgentDefinition } from "@/lib/client/agent-types";

export type Draft = Record<string, unknown>;
export type PromptParameter = NonNullable<AgentDefinition["parameters"]>[number];

/** The starting point of a new agent: the required fields, empty. */
export function newAgentDraft(): Draft {
  return { id: "", version: "1.0.0", name: "", instructions: "", parameters: [], capabilities: [{}], tools: [], retrieval: [], guardrails: [] };
}

/** Sections that exist only while one of their fields is set. */
const OPTIONAL_OBJECTS = new Set(["conversationPolicy", "budget", "toolErrors"]);

/**
 * `draft` with the value at `path` replaced; `undefined` removes the key (and an optional section left empty).
 * Arrays are indexed by number segments.
 */
export function setIn(draft: Draft, path: (string | number)[], value: unknown): Draft {
  const write = (node: unknown, depth: number): unknown => {
    const key = path[depth];
    const last = depth === path.length - 1;
    if (Array.isArray(node) || typeof key === "number") {
      const list = Array.isArray(node) ? [...node] : [];
      const index = Number(key);
      if (last) {
        if (value === undefined) list.splice(index, 1);
        else list[index] = value;
      } else list[index] = write(list[index], depth + 1);
      return list;
    }
    const record: Record<string, unknown> = { ...((node as Record<string, unknown>) ?? {}) };
    const name = String(key);
    const next = last ? value : write(record[name], depth + 1);
    if (next === undefined) delete record[name];
    else record[name] = next;
    if (depth === 0 && OPTIONAL_OBJECTS.has(name) && isEmptyObject(record[name])) delete record[name];
    return record;
  };
  return write(draft, 0) as Draft;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** The definition pretty-printed, as the raw JSON view and the version diff show it. */
export function prettyDefinition(definition: unknown): string {
  return JSON.stringify(definition, null, 2);
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TYPES = new Set(["string", "number", "boolean", "date"]);

/** The parameters well-formed enough to preview with (a half-typed one is skipped instead of failing the preview). */
export function previewableParameters(parameters: unknown): PromptParameter[] {
  if (!Array.isArray(parameters)) return [];
  const seen = new Set<string>();
  return parameters.filter((p): p is PromptParameter => {
    if (typeof p !== "object" || p === null) return false;
    const { name, type, required, description } = p as Record<string, unknown>;
    if (typeof name !== "string" || !NAME.test(name) || seen.has(name) || typeof type !== "string" || !TYPES.has(type)) return false;
    if (required !== undefined && typeof required !== "boolean") return false;
    if (description !== undefined && typeof description !== "string") return false;
    if (Object.keys(p).some((key) => !["name", "type", "required", "description", "default"].includes(key))) return false;
    seen.add(name);
    return true;
  });
}

/** Id of the element that edits the field at a JSON pointer: `/tools/0/version` → `agent-field-tools-0-version`. */
export function fieldId(pointer: string): string {
  const segments = pointer.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~").replace(/[^A-Za-z0-9_-]/g, "_"));
  return ["agent-field", ...segments].join("-");
}

/**
 * The element a problem at `pointer` belongs to: the most specific field that exists on the page
 * (`/budget/maxSteps`, else `/budget`, …), or null.
 */
export function fieldElementFor(pointer: string, doc: Pick<Document, "getElementById"> = document): HTMLElement | null {
  const segments = pointer.split("/").slice(1);
  for (let n = segments.length; n >= 0; n -= 1) {
    const element = doc.getElementById(fieldId(n ? `/${segments.slice(0, n).join("/")}` : ""));
    if (element) return element;
  }
  return null;
}

/** A template problem positioned in the instructions. */
export type TemplateMarker = { line: number; column: number; message: string };

const POSITION = /^line (\d+), column (\d+): ([\s\S]*)$/;

/**
 * The instructions problems among `issues` (at `/instructions` from validate, at `/definition/instructions` from the
 * draft render) that have a position, with their line and column: the structured fields when present, else read
 * from the message. Problems without a position ("must not be empty") are left to the field.
 */
export function templateMarkers(issues: readonly (Issue & { line?: number; column?: number })[]): TemplateMarker[] {
  const markers: TemplateMarker[] = [];
  for (const issue of issues) {
    if (issue.path !== "/instructions" && issue.path !== "/definition/instructions") continue;
    const match = POSITION.exec(issue.message);
    if (!match && (issue.line === undefined || issue.column === undefined)) continue;
    const line = issue.line ?? Number(match![1]);
    const column = issue.column ?? Number(match![2]);
    const message = match ? match[3] : issue.message;
    if (!markers.some((m) => m.line === line && m.column === column && m.message === message)) markers.push({ line, column, message });
  }
  return markers;
}

export type BumpLevel = "major" | "minor" | "patch";
export type VersionSuggestion = { version: string; level: BumpLevel | null; reasons: string[] };

const PATCH_FIELDS = new Set(["instructions", "description", "name", "tags"]);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function byName<T extends { name?: unknown; id?: unknown }>(list: unknown, key: "name" | "id"): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of Array.isArray(list) ? list : []) if (item && typeof item[key] === "string") map.set(item[key], item as T);
  return map;
}

/**
 * The next version to save: major when a parameter was removed or changed (or a required one added) or a tool
 * removed; minor when something was added or another setting changed (optional parameters, tools, retrieval,
 * guardrails, model, budget…); patch when only the instructions, name, description or tags changed.
 * `latest` is the agent's highest version (null for a new agent: 1.0.0, or the draft's own version if valid).
 */
export function suggestVersion(base: Draft | null, latest: string | null, draft: Draft): VersionSuggestion {
  if (!base || !latest) {
    const own = typeof draft.version === "string" && semver.valid(draft.version) ? draft.version : "1.0.0";
    return { version: own, level: null, reasons: ["first version of this agent"] };
  }
  const reasons: Record<BumpLevel, string[]> = { major: [], minor: [], patch: [] };
  const before = byName<PromptParameter>(base.parameters, "name");
  const after = byName<PromptParameter>(draft.parameters, "name");
  for (const [name, param] of before) {
    const now = after.get(name);
    if (!now) reasons.major.push(`parameter "${name}" removed`);
    else if (!same({ ...param, description: undefined }, { ...now, description: undefined })) reasons.major.push(`parameter "${name}" changed`);
    else if (!same(param.description, now.description)) reasons.patch.push(`description of parameter "${name}" changed`);
  }
  for (const [name, param] of after) {
    if (before.has(name)) continue;
    if ((param.required ?? true) && param.default === undefined) reasons.major.push(`required parameter "${name}" added`);
    else reasons.minor.push(`optional parameter "${name}" added`);
  }
  const toolsBefore = byName<{ id: string; version: string }>(base.tools, "id");
  const toolsAfter = byName<{ id: string; version: string }>(draft.tools, "id");
  for (const id of toolsBefore.keys()) if (!toolsAfter.has(id)) reasons.major.push(`tool "${id}" removed`);
  for (const [id, ref] of toolsAfter) {
    const old = toolsBefore.get(id);
    if (!old) reasons.minor.push(`tool "${id}" added`);
    else if (old.version !== ref.version) reasons.minor.push(`range of tool "${id}" changed`);
  }
  const keys = new Set([...Object.keys(base), ...Object.keys(draft)]);
  for (const key of keys) {
    if (["id", "version", "parameters", "tools"].includes(key) || same(base[key], draft[key])) continue;
    if (PATCH_FIELDS.has(key)) reasons.patch.push(`${key} changed`);
    else reasons.minor.push(`${key} ${key in base ? (key in draft ? "changed" : "removed") : "added"}`);
  }
  const level: BumpLevel | null = reasons.major.length ? "major" : reasons.minor.length ? "minor" : reasons.patch.length ? "patch" : null;
  // Unchanged: the next patch still, since the latest version is taken.
  const version = semver.inc(latest, level ?? "patch") ?? latest;
  return { version, level, reasons: level ? reasons[level] : [] };
}

/** Whether the draft differs from what it was loaded from. */
export function isDirty(base: Draft, draft: Draft): boolean {
  return !same(base, draft);
}
