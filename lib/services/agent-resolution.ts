/**
 * Tool resolution of an agent: each `{id, version}` reference names an npm semver range, which resolves to the
 * highest ACTIVE registered version satisfying it (`semver.maxSatisfying`, npm's rules: a prerelease version
 * satisfies only a range that names a prerelease of the same major.minor.patch), among the tools of the agent's
 * tenant and project, or among the tools built into Kindgi (lib/tools/native). The kernel resolves at run start and
 * records the result on the run; the API shows it.
 */
import semver from "semver";
import { getDb, type DbTx } from "@/lib/db";
import { AppError, type Issue } from "@/lib/errors";
import type { ToolRef } from "@/lib/agents/validate-agent";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { builtinToolVersions, getBuiltinTool, isBuiltinToolId } from "@/lib/tools/native";
import { toolInvocability } from "@/lib/tools/invocability";
import { cached } from "@/lib/services/tenant-generation";

/** Where an agent's tools are looked up: its tenant and project (an Actor fits when it carries both). */
export type ResolutionScope = { tenantId: string; projectId: string };

export type ResolvedTool = { id: string; range: string; version: string };
export type UnresolvedTool = { id: string; range: string; available: string[] };
export type ToolResolution = { resolved: ResolvedTool[]; unresolved: UnresolvedTool[] };

/**
 * The highest of `versions` that satisfies `range` by npm semver rules (no prerelease unless the range names
 * one of the same tuple), or null when none does or the range is not a valid range.
 */
export function pickToolVersion(range: string, versions: readonly string[]): string | null {
  if (semver.validRange(range) === null) return null;
  return semver.maxSatisfying([...versions], range);
}

/**
 * Active versions of each tool id in the scope, highest first (an id with none maps to []). A built-in tool's id
 * resolves against its built-in versions, unless a tool of that id was registered in the tenant (before the id was
 * reserved): then the registered versions count, as for any other id.
 */
export async function activeToolVersions(scope: ResolutionScope, toolIds: readonly string[], db?: DbTx): Promise<Map<string, string[]>> {
  const byId = new Map<string, string[]>(toolIds.map((id) => [id, []]));
  if (toolIds.length === 0) return byId;
  const client = db ?? (await getDb());
  const rows = await client.catalogVersion.findMany({
    where: { tenantId: scope.tenantId, projectId: scope.projectId, kind: "tool", status: "active", entryId: { in: [...byId.keys()] } },
    select: { entryId: true, version: true },
  });
  for (const row of rows) byId.get(row.entryId)?.push(row.version);
  const builtinIds = [...byId.keys()].filter(isBuiltinToolId);
  if (builtinIds.length) {
    const registered = await client.catalogEntry.findMany({ where: { tenantId: scope.tenantId, kind: "tool", entryId: { in: builtinIds } }, select: { entryId: true } });
    const shadowed = new Set(registered.map((entry) => entry.entryId));
    for (const id of builtinIds) if (!shadowed.has(id)) byId.set(id, builtinToolVersions(id));
  }
  for (const versions of byId.values()) versions.sort((a, b) => semver.rcompare(a, b, true));
  return byId;
}

/**
 * Resolves every tool reference of `definition` in `scope` to the highest active version satisfying its range.
 * Unresolvable references (including a malformed range) come back in `unresolved` with the active versions
 * that exist, highest first. Pass `db` to read inside a transaction (the kernel at run start).
 */
export async function resolveAgentTools(scope: ResolutionScope, definition: { tools: readonly ToolRef[] }, db?: DbTx): Promise<ToolResolution> {
  if (db) return resolveNow(scope, definition, db);
  // Outside a transaction: under the tenant's generation (registering or unregistering a version bumps it).
  const key = `tools:${scope.projectId}:${JSON.stringify(definition.tools.map((ref) => [ref.id, ref.version]))}`;
  const result = await cached(scope.tenantId, key, () => resolveNow(scope, definition), "catalog");
  return { resolved: result.resolved.map((item) => ({ ...item })), unresolved: result.unresolved.map((item) => ({ ...item, available: [...item.available] })) };
}

async function resolveNow(scope: ResolutionScope, definition: { tools: readonly ToolRef[] }, db?: DbTx): Promise<ToolResolution> {
  const result: ToolResolution = { resolved: [], unresolved: [] };
  for (const item of await resolveReferences(scope, definition.tools, db)) {
    if (item.version) result.resolved.push({ id: item.id, range: item.range, version: item.version });
    else result.unresolved.push({ id: item.id, range: item.range, available: item.available });
  }
  return result;
}

/** What one reference resolves to now: the version (null when none), and the active versions that exist. */
export type ReferenceResolution = { id: string; range: string; version: string | null; available: string[] };

/** The resolution of each reference, in order, with the active versions of its tool (what a tool picker shows). */
export async function resolveReferences(scope: ResolutionScope, tools: readonly ToolRef[], db?: DbTx): Promise<ReferenceResolution[]> {
  const versions = await activeToolVersions(scope, [...new Set(tools.map((ref) => ref.id))], db);
  return tools.map((ref) => {
    const available = versions.get(ref.id) ?? [];
    return { id: ref.id, range: ref.version, version: pickToolVersion(ref.version, available), available };
  });
}

/** The `tool-version-unresolvable` error (422) for one reference, naming the versions that exist. */
export function toolVersionUnresolvable(unresolved: UnresolvedTool): AppError {
  const exists = unresolved.available.length ? `active versions: ${unresolved.available.join(", ")}` : "no active version is registered";
  return new AppError("tool-version-unresolvable", `tool ${JSON.stringify(unresolved.id)} has no active version satisfying ${JSON.stringify(unresolved.range)} (${exists})`, {
    toolId: unresolved.id,
    range: unresolved.range,
    available: unresolved.available,
  });
}

/** Throws `tool-version-unresolvable` for the first unresolved reference; returns the resolved list otherwise. */
export function requireToolsResolved(resolution: ToolResolution): ResolvedTool[] {
  if (resolution.unresolved.length) throw toolVersionUnresolvable(resolution.unresolved[0]);
  return resolution.resolved;
}

/**
 * Warnings for references whose (valid) range resolves to nothing today, at `/tools/<i>/version`:
 * registration accepts them, a run that needs them fails with tool-version-unresolvable.
 * `indexes` maps each entry of `references` to its index in the definition's `tools` (default: the same).
 */
export function unresolvedWarnings(references: readonly ReferenceResolution[], indexes?: readonly number[]): Issue[] {
  return references.flatMap((item, i) => {
    if (item.version !== null || semver.validRange(item.range) === null) return [];
    const exists = item.available.length ? `active versions: ${item.available.join(", ")}` : "no active version of this tool is registered in the project";
    return [{ path: `/tools/${indexes?.[i] ?? i}/version`, message: `"${item.range}" resolves to no active version of "${item.id}" today (${exists}); a run would fail with tool-version-unresolvable` }];
  });
}

/**
 * Warnings at `/tools/<i>` for references whose range resolves to a version this server cannot invoke (an MCP tool, a
 * pack handler, a tool with neither `spec` nor handler): a run that calls it gets a tool error.
 * `indexes` maps each entry of `references` to its index in the definition's `tools` (default: the same).
 */
export async function uninvocableToolWarnings(scope: ResolutionScope, references: readonly ReferenceResolution[], indexes?: readonly number[]): Promise<Issue[]> {
  const resolved = references.flatMap((item, i) => (item.version === null ? [] : [{ id: item.id, range: item.range, version: item.version, index: indexes?.[i] ?? i }]));
  if (resolved.length === 0) return [];
  const db = await getDb();
  const rows = await db.catalogVersion.findMany({
    where: { tenantId: scope.tenantId, projectId: scope.projectId, kind: "tool", OR: resolved.map((item) => ({ entryId: item.id, version: item.version })) },
    select: { entryId: true, version: true, document: true },
  });
  return resolved.flatMap((item) => {
    const row = rows.find((candidate) => candidate.entryId === item.id && candidate.version === item.version);
    const manifest = row ? (JSON.parse(row.document) as ToolManifest) : getBuiltinTool(item.id, item.version);
    if (!manifest) return [];
    const invocability = toolInvocability(manifest);
    if (invocability.invocable) return [];
    return [{ path: `/tools/${item.index}`, message: `"${item.range}" resolves to ${item.id}@${item.version}, which this server cannot invoke: ${invocability.reason}; a run whose model calls it gets a tool error` }];
  });
}
