import { statSync } from "node:fs";
import semver from "semver";
import { RawJson } from "@/lib/json";
import { decodeCursor, encodeCursor, toPage, type Page } from "@/lib/pagination";
import { getDb } from "@/lib/db";
import { AppError, notFound, type Issue } from "@/lib/errors";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import { BUILTIN_TOOLS, BUILTIN_TOOLS_RELEASED_AT, getBuiltinTool, isBuiltinToolId } from "@/lib/tools/native";
import { ineffectiveDeclarations, notInvocableMessage, toolInvocability } from "@/lib/tools/invocability";
import { filesystemHandlersAllowed, validateToolManifest } from "@/lib/tools/validate-manifest";
import { requireWrite, resolveWritableProject, type Actor } from "@/lib/services/actor";
import { resolveArtifactForRegistration } from "@/lib/services/artifacts";
import { BoundedMap } from "@/lib/services/bounded-map";
import { type CatalogFilters, type CatalogListRow, type CatalogVersionRow, documentsById, getCatalogEntry, getCatalogVersion, listCatalogJson, listCatalogVersions, catalogVersionSummary, refuseInvalidDocument, registerCatalogVersion, setCatalogVersionStatus } from "@/lib/services/catalog";

export type ToolVersionView = {
  toolId: string;
  version: string;
  /** Null for a tool built into Kindgi: it belongs to no project. */
  projectId: string | null;
  status: string;
  isLatest: boolean;
  registeredAt: string;
  /** Null for a tool built into Kindgi. */
  registeredBy: string | null;
  statusChangedAt: string | null;
  manifest: RawJson;
  builtIn: boolean;
  /** An `oci` handler's artifact: its imageRef, the digest that ref resolved to at registration, its artifactVersion. */
  artifact: { imageRef: string; digest: string; artifactVersion: string } | null;
};

export type ToolSummary = {
  toolId: string;
  /** Null for a tool built into Kindgi: it belongs to no project. */
  projectId: string | null;
  latestVersion: string;
  description: string;
  mutating: boolean;
  transport: string;
  effects: string[];
  tags: string[];
  /** From the manifest (false when absent): the behaviour a person reads in the catalog. */
  needsApprovalWhenUnattended: boolean;
  pauses: boolean;
  resultIsOutsideData: boolean;
  registeredAt: string;
  builtIn: boolean;
};

export const toolVersionView = (row: CatalogVersionRow): ToolVersionView => ({
  toolId: row.entryId,
  version: row.version,
  projectId: row.projectId,
  status: row.status,
  isLatest: row.isLatest,
  registeredAt: row.registeredAt.toISOString(),
  registeredBy: row.registeredBy,
  statusChangedAt: row.statusChangedAt?.toISOString() ?? null,
  manifest: new RawJson(row.document),
  builtIn: false,
  artifact: artifactOf(row),
});

function artifactOf(row: CatalogVersionRow): ToolVersionView["artifact"] {
  if (!row.artifactDigest) return null;
  const ref = (JSON.parse(row.document) as ToolManifest).codeArtifactRef;
  return ref?.kind === "oci" ? { imageRef: ref.imageRef, digest: row.artifactDigest, artifactVersion: ref.artifactVersion } : null;
}

type ToolFlags = Pick<ToolManifest, "needsApprovalWhenUnattended" | "pauses" | "resultIsOutsideData">;
/** The manifest's flags a list shows, by version row id (a version's manifest never changes). */
const flagsByVersion = new BoundedMap<string, ToolFlags>(20_000);

/** The flags of each listed version, reading manifests only for versions not seen before. */
async function toolFlags(rows: readonly CatalogListRow[]): Promise<Map<string, ToolFlags>> {
  const flags = new Map<string, ToolFlags>();
  const missing: string[] = [];
  for (const row of rows) {
    const hit = flagsByVersion.get(row.id);
    if (hit) flags.set(row.id, hit);
    else missing.push(row.id);
  }
  if (missing.length) {
    for (const [id, document] of await documentsById(missing)) {
      const manifest = JSON.parse(document) as ToolFlags;
      const found = { needsApprovalWhenUnattended: manifest.needsApprovalWhenUnattended === true, pauses: manifest.pauses === true, resultIsOutsideData: manifest.resultIsOutsideData === true };
      flagsByVersion.set(id, found);
      flags.set(id, found);
    }
  }
  return flags;
}

const summary = (row: CatalogListRow, manifest: ToolFlags = {}): ToolSummary => {
  return {
    toolId: row.entryId,
    projectId: row.projectId,
    latestVersion: row.version,
    description: row.description ?? "",
    mutating: row.mutating ?? true,
    transport: row.transport ?? "auto",
    effects: row.effectKinds,
    tags: row.tags,
    needsApprovalWhenUnattended: manifest.needsApprovalWhenUnattended === true,
    pauses: manifest.pauses === true,
    resultIsOutsideData: manifest.resultIsOutsideData === true,
    registeredAt: row.registeredAt.toISOString(),
    builtIn: false,
  };
};

const builtinSummary = (manifest: ToolManifest): ToolSummary => ({
  toolId: manifest.id,
  projectId: null,
  latestVersion: manifest.version,
  description: manifest.description ?? "",
  mutating: manifest.mutating ?? true,
  transport: manifest.transport ?? "auto",
  effects: [...new Set((manifest.effects ?? []).map((effect) => effect.kind))],
  tags: tagsOf(manifest.metadata),
  needsApprovalWhenUnattended: manifest.needsApprovalWhenUnattended === true,
  pauses: manifest.pauses === true,
  resultIsOutsideData: manifest.resultIsOutsideData === true,
  registeredAt: BUILTIN_TOOLS_RELEASED_AT,
  builtIn: true,
});

/** Whether a built-in tool's latest version passes the list's filters, as a registered tool's row would (`projectId` does not exclude it: it resolves in every project). */
function builtinMatches(summary: ToolSummary, filters: CatalogFilters): boolean {
  if (filters.q && ![summary.toolId, "", summary.description, ...summary.tags].join("\n").toLowerCase().includes(filters.q.toLowerCase())) return false;
  if (filters.effect && !summary.effects.includes(filters.effect)) return false;
  if (filters.mutating !== undefined && summary.mutating !== filters.mutating) return false;
  if (filters.transport && summary.transport !== filters.transport) return false;
  if (filters.tag && !summary.tags.includes(filters.tag)) return false;
  return true;
}

/** The latest version of each built-in tool no registration of the tenant shadows (see {@link builtinFor}), by id. */
async function unshadowedBuiltins(actor: Actor): Promise<ToolManifest[]> {
  const ids = [...new Set(BUILTIN_TOOLS.map((tool) => tool.id))].sort();
  const db = await getDb();
  const shadowed = new Set((await db.catalogEntry.findMany({ where: { tenantId: actor.tenantId, kind: "tool", entryId: { in: ids } }, select: { entryId: true } })).map((row) => row.entryId));
  return ids.filter((id) => !shadowed.has(id)).map((id) => BUILTIN_TOOLS.filter((tool) => tool.id === id).sort((a, b) => semver.rcompare(a.version, b.version))[0]);
}


function tagsOf(metadata: unknown): string[] {
  const tags = (metadata as { tags?: unknown } | undefined)?.tags;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === "string") : [];
}

/**
 * Warnings about a valid manifest: one at the field concerned when this server cannot invoke the tool (an MCP tool, a
 * pack handler, a tool with neither `spec` nor handler), since every run that calls it gets a tool error; and one at
 * each declaration that cannot apply to how the tool runs (see {@link ineffectiveDeclarations}).
 */
export function toolWarnings(manifest: ToolManifest): Issue[] {
  const warnings = unsandboxedHandlerWarnings(manifest);
  const invocability = toolInvocability(manifest);
  const notInvocable = invocability.invocable
    ? []
    : [{ path: invocability.path, message: `${notInvocableMessage(manifest, invocability.reason)}; every call of it in a run is a tool error (by default the run fails with tool-invocation-failed)` }];
  return [...notInvocable, ...ineffectiveDeclarations(manifest), ...warnings];
}

/**
 * A pack handler with `sandbox: "none"` (or none given) runs in the server's own process, where nothing stops its
 * plain `fetch` or sockets: its network policy binds only what it sends through `context.fetch`.
 */
function unsandboxedHandlerWarnings(manifest: ToolManifest): Issue[] {
  if (!manifest.codeArtifactRef || (manifest.sandbox ?? "none") !== "none") return [];
  return [{ path: "/sandbox", message: 'the handler runs in the server\'s process (sandbox "none"): its network policy covers only what it sends through context.fetch; use "context-isolated" or "strict" to bind all of its connections' }];
}

/** Whether a handler file exists at `path` on this server's disk. */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Registers a tool manifest (POST /v1/tools): validates it against Tool 1.3.0 and the registry's rules (a
 * production server refuses `filesystem` handlers unless allowed), then stores it exactly as sent, without
 * `projectId`. A projectId problem is reported with the manifest's problems (see {@link refuseInvalidDocument}).
 * Answers with `warnings` (see {@link toolWarnings}).
 */
export async function registerTool(actor: Actor, body: Record<string, unknown>): Promise<{ toolId: string; version: string; warnings: Issue[] }> {
  const { projectId, ...manifest } = body;
  const result = validateToolManifest(manifest, { allowFilesystemHandlers: filesystemHandlersAllowed(), modulePathExists: isFile });
  const reserved =
    typeof manifest.id === "string" && isBuiltinToolId(manifest.id)
      ? { path: "/id", message: `${JSON.stringify(manifest.id)} is reserved for a built-in tool; choose another id, e.g. "<pack>.${manifest.id}"` }
      : undefined;
  if (!result.ok || reserved) {
    const issues = result.ok ? [] : result.issues.filter((issue) => !reserved || issue.path !== "/id");
    return refuseInvalidDocument(actor, projectId, "the manifest", reserved ? [reserved, ...issues] : issues);
  }
  const tool = result.manifest;
  // An oci artifact's tag is resolved now, so that this version always runs the bytes it names today.
  let artifactDigest: string | undefined;
  if (tool.codeArtifactRef?.kind === "oci") {
    requireWrite(actor);
    const resolved = await resolveArtifactForRegistration(actor.tenantId, tool.codeArtifactRef);
    if (!resolved.ok) return refuseInvalidDocument(actor, projectId, "the manifest", [resolved.issue]);
    artifactDigest = resolved.digest;
  }
  const row = await registerCatalogVersion(actor, {
    kind: "tool",
    projectId,
    entryId: tool.id,
    version: tool.version,
    document: JSON.stringify(manifest),
    description: tool.description,
    tags: tagsOf(tool.metadata),
    mutating: tool.mutating ?? true,
    transport: tool.transport ?? "auto",
    effectKinds: [...new Set((tool.effects ?? []).map((effect) => effect.kind))],
    ...(artifactDigest ? { artifactDigest } : {}),
  });
  return { toolId: row.entryId, version: row.version, warnings: toolWarnings(tool) };
}

/**
 * A page of tools, as the JSON text of a `Page<ToolSummary>` (kept under the catalog generation, see listCatalogJson).
 * The built-in tools that pass the filters and that no registration shadows are merged into the id order: a page
 * shows those after the cursor and, when more registered tools follow, not after its last registered row; the merged
 * page is cut to `limit`, its cursor the last id shown.
 */
export async function listTools(actor: Actor, filters: CatalogFilters, page: { limit: number; cursor?: string }): Promise<RawJson<Page<ToolSummary>>> {
  return listCatalogJson(actor, "tool", filters, page, async (result) => {
    const flags = await toolFlags(result.data);
    const registered = result.data.map((row) => summary(row, flags.get(row.id)));
    const after = decodeCursor(page.cursor)?.[0];
    const until = result.hasMore ? registered[registered.length - 1]?.toolId : undefined;
    const builtins = (await unshadowedBuiltins(actor))
      .map(builtinSummary)
      .filter((tool) => (after === undefined || tool.toolId > String(after)) && (until === undefined || tool.toolId <= until) && builtinMatches(tool, filters));
    if (!builtins.length) return { ...result, data: registered };
    const merged = [...registered, ...builtins].sort((a, b) => (a.toolId < b.toolId ? -1 : a.toolId > b.toolId ? 1 : 0));
    const shown = merged.slice(0, page.limit);
    const hasMore = result.hasMore || merged.length > page.limit;
    return { data: shown, hasMore, ...(hasMore ? { nextCursor: encodeCursor([shown[shown.length - 1].toolId]) } : {}) };
  });
}

/**
 * The built-in tool `toolId` when the caller's tenant has no registered tool of that id (registrations made before the
 * id was reserved keep answering as registered tools), else null.
 */
export async function builtinFor(actor: Actor, toolId: string): Promise<ToolManifest[] | null> {
  if (!isBuiltinToolId(toolId)) return null;
  const db = await getDb();
  const registered = await db.catalogEntry.findFirst({ where: { tenantId: actor.tenantId, kind: "tool", entryId: toolId }, select: { id: true } });
  if (registered) return null;
  return BUILTIN_TOOLS.filter((manifest) => manifest.id === toolId).sort((a, b) => semver.rcompare(a.version, b.version));
}

const builtinVersionView = (manifest: ToolManifest, latestVersion: string): ToolVersionView => ({
  toolId: manifest.id,
  version: manifest.version,
  projectId: null,
  status: "active",
  isLatest: manifest.version === latestVersion,
  registeredAt: BUILTIN_TOOLS_RELEASED_AT,
  registeredBy: null,
  statusChangedAt: null,
  manifest: new RawJson(JSON.stringify(manifest)),
  builtIn: true,
  artifact: null,
});

const builtinVersionSummary = (manifest: ToolManifest, latestVersion: string) => ({ version: manifest.version, status: "active", isLatest: manifest.version === latestVersion, registeredAt: BUILTIN_TOOLS_RELEASED_AT, statusChangedAt: null });

/** A tool with its latest active version and every version; a built-in tool answers with `builtIn: true` and no project. */
export async function getTool(actor: Actor, toolId: string) {
  const builtin = await builtinFor(actor, toolId);
  if (builtin) {
    const latest = builtin[0];
    return {
      toolId,
      projectId: null,
      latestVersion: latest.version,
      latest: builtinVersionView(latest, latest.version),
      versions: builtin.map((manifest) => builtinVersionSummary(manifest, latest.version)),
      createdAt: BUILTIN_TOOLS_RELEASED_AT,
      builtIn: true,
    };
  }
  const { entry, latest, versions } = await getCatalogEntry(actor, "tool", toolId);
  return {
    toolId: entry.entryId,
    projectId: entry.projectId,
    latestVersion: entry.latestVersion,
    latest: latest ? toolVersionView(latest) : null,
    versions: versions.map(catalogVersionSummary),
    createdAt: entry.createdAt.toISOString(),
    builtIn: false,
  };
}

/** Versions newest first (by semver); the cursor is the last version shown. */
export async function listToolVersions(actor: Actor, toolId: string, page: { limit: number; cursor?: string }) {
  const builtin = await builtinFor(actor, toolId);
  if (!builtin) return listCatalogVersions(actor, "tool", toolId, page);
  const after = decodeCursor(page.cursor)?.[0];
  if (after !== undefined && (typeof after !== "string" || !semver.valid(after)))
    throw new AppError("bad-input", "cursor is not one this API returned", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
  const shown = after ? builtin.filter((manifest) => semver.lt(manifest.version, after)) : builtin;
  return toPage(shown.slice(0, page.limit + 1), page.limit, (manifest) => [manifest.version], (manifest) => builtinVersionSummary(manifest, builtin[0].version));
}

export async function getToolVersion(actor: Actor, toolId: string, version: string): Promise<ToolVersionView> {
  const builtin = await builtinFor(actor, toolId);
  if (builtin) {
    const manifest = getBuiltinTool(toolId, version);
    if (!manifest) throw notFound("tool version", `${toolId}@${version}`);
    return builtinVersionView(manifest, builtin[0].version);
  }
  return toolVersionView(await getCatalogVersion(actor, "tool", toolId, version));
}

export async function setToolVersionStatus(actor: Actor, toolId: string, version: string, status: "active" | "unregistered"): Promise<ToolVersionView> {
  return toolVersionView(await setCatalogVersionStatus(actor, "tool", toolId, version, status));
}

/** A page of whole tool manifests, ordered by id; `nextCursor` when there are more. */
export type ToolManifestPage = { projectId: string; data: ToolManifest[]; nextCursor?: string };

/**
 * The tools a project offers as whole manifests — the latest active version of each registered tool, and the tools
 * built into Kindgi that no registration of the tenant shadows — ordered by id, for a protocol door (the MCP
 * server's `tools/list`). `projectId` is the key's project when it is narrowed, else the one asked for, else the
 * tenant's default project.
 */
export async function listProjectToolManifests(actor: Actor, requestedProjectId: string | undefined, page: { limit: number; cursor?: string }): Promise<ToolManifestPage> {
  const db = await getDb();
  const projectId = await resolveToolProject(actor, requestedProjectId);
  // The built-in tools come first, then the registered ones (by id, as the database orders them): the cursor is the
  // phase ("b" or "r") and the last id shown.
  const key = decodeCursor(page.cursor);
  if (key && (key.length !== 2 || (key[0] !== "b" && key[0] !== "r") || typeof key[1] !== "string")) throw new AppError("bad-input", "cursor is not one this list gave", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
  const [phase, after] = (key ?? [undefined, undefined]) as [string | undefined, string | undefined];
  const ids = [...new Set(BUILTIN_TOOLS.map((tool) => tool.id))].sort();
  const shadowed = new Set((await db.catalogEntry.findMany({ where: { tenantId: actor.tenantId, kind: "tool", entryId: { in: ids } }, select: { entryId: true } })).map((row) => row.entryId));
  const builtins = phase === "r" ? [] : ids.filter((id) => !shadowed.has(id) && (after === undefined || id > after)).map((id) => BUILTIN_TOOLS.filter((tool) => tool.id === id).sort((a, b) => semver.rcompare(a.version, b.version))[0]);
  const rows = builtins.length > page.limit ? [] : await db.catalogVersion.findMany({
    where: { tenantId: actor.tenantId, projectId, kind: "tool", isLatest: true, status: "active", ...(phase === "r" ? { entryId: { gt: after } } : {}) },
    orderBy: { entryId: "asc" },
    take: page.limit + 1 - builtins.length,
    select: { entryId: true, document: true },
  });
  const merged = [...builtins.map((manifest) => ({ phase: "b", manifest })), ...rows.map((row) => ({ phase: "r", manifest: JSON.parse(row.document) as ToolManifest }))];
  const shown = merged.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return { projectId, data: shown.map((item) => item.manifest), ...(merged.length > page.limit ? { nextCursor: encodeCursor([last.phase, last.manifest.id]) } : {}) };
}

/** The project a door serves: the key's when narrowed, else `requested` (a project of the tenant), else the default. */
export async function resolveToolProject(actor: Actor, requested: string | undefined): Promise<string> {
  const db = await getDb();
  if (requested !== undefined) return resolveWritableProject(db, actor, requested);
  if (actor.projectId) return actor.projectId;
  const tenant = await db.tenant.findUnique({ where: { id: actor.tenantId }, select: { defaultProjectId: true } });
  if (!tenant?.defaultProjectId) throw new AppError("bad-input", "the tenant has no default project: give projectId", { issues: [{ path: "/projectId", message: "is required" }] });
  return tenant.defaultProjectId;
}
