import { RawJson } from "@/lib/api/json";
import type { Page } from "@/lib/api/pagination";
import { AppError } from "@/lib/errors";
import { validateToolManifest } from "@/lib/tools/validate-manifest";
import type { Actor } from "@/lib/services/actor";
import { type CatalogFilters, type CatalogVersionRow, getCatalogEntry, getCatalogVersion, listCatalog, listCatalogVersions, catalogVersionSummary, registerCatalogVersion, setCatalogVersionStatus } from "@/lib/services/catalog";

export type ToolVersionView = {
  toolId: string;
  version: string;
  projectId: string;
  status: string;
  isLatest: boolean;
  registeredAt: string;
  registeredBy: string;
  statusChangedAt: string | null;
  manifest: RawJson;
};

export type ToolSummary = {
  toolId: string;
  projectId: string;
  latestVersion: string;
  description: string;
  mutating: boolean;
  transport: string;
  effects: string[];
  tags: string[];
  registeredAt: string;
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
});

const summary = (row: CatalogVersionRow): ToolSummary => ({
  toolId: row.entryId,
  projectId: row.projectId,
  latestVersion: row.version,
  description: row.description ?? "",
  mutating: row.mutating ?? true,
  transport: row.transport ?? "auto",
  effects: row.effectKinds,
  tags: row.tags,
  registeredAt: row.registeredAt.toISOString(),
});


function tagsOf(metadata: unknown): string[] {
  const tags = (metadata as { tags?: unknown } | undefined)?.tags;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === "string") : [];
}

/**
 * Registers a tool manifest (POST /v1/tools): validates it against Tool 1.3.0 and the registry's rules,
 * then stores it exactly as sent, without `projectId`.
 */
export async function registerTool(actor: Actor, body: Record<string, unknown>): Promise<{ toolId: string; version: string }> {
  const { projectId, ...manifest } = body;
  const result = validateToolManifest(manifest);
  if (!result.ok) throw new AppError("validation-failed", `the manifest is not valid: ${result.issues.length} problem(s), first: ${result.issues[0].path || "/"} ${result.issues[0].message}`, { issues: result.issues });
  const tool = result.manifest;
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
  });
  return { toolId: row.entryId, version: row.version };
}

export async function listTools(actor: Actor, filters: CatalogFilters, page: { limit: number; cursor?: string }): Promise<Page<ToolSummary>> {
  const result = await listCatalog(actor, "tool", filters, page);
  return { ...result, data: result.data.map(summary) };
}

export async function getTool(actor: Actor, toolId: string) {
  const { entry, latest, versions } = await getCatalogEntry(actor, "tool", toolId);
  return {
    toolId: entry.entryId,
    projectId: entry.projectId,
    latestVersion: entry.latestVersion,
    latest: latest ? toolVersionView(latest) : null,
    versions: versions.map(catalogVersionSummary),
    createdAt: entry.createdAt.toISOString(),
  };
}

/** Versions newest first (by semver); the cursor is the last version shown. */
export async function listToolVersions(actor: Actor, toolId: string, page: { limit: number; cursor?: string }) {
  return listCatalogVersions(actor, "tool", toolId, page);
}

export async function getToolVersion(actor: Actor, toolId: string, version: string): Promise<ToolVersionView> {
  return toolVersionView(await getCatalogVersion(actor, "tool", toolId, version));
}

export async function setToolVersionStatus(actor: Actor, toolId: string, version: string, status: "active" | "unregistered"): Promise<ToolVersionView> {
  return toolVersionView(await setCatalogVersionStatus(actor, "tool", toolId, version, status));
}
