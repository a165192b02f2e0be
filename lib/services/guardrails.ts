import { RawJson } from "@/lib/json";
import type { Page } from "@/lib/pagination";
import { getDb, type DbTx } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { validateGuardrailDefinition, type GuardrailDefinition } from "@/lib/guardrails/definition";
import type { ResolvedGuardrail } from "@/lib/guardrails/evaluate";
import type { Actor } from "@/lib/services/actor";
import { type CatalogFilters, type CatalogListRow, type CatalogVersionRow, documentsById, getCatalogEntry, getCatalogVersion, listCatalog, listCatalogVersions, catalogVersionSummary, refuseInvalidDocument, registerCatalogVersion, requireSemverVersion, setCatalogVersionStatus } from "@/lib/services/catalog";
import { cached } from "@/lib/services/tenant-generation";

export type GuardrailVersionView = {
  guardrailId: string;
  version: string;
  projectId: string;
  status: string;
  isLatest: boolean;
  registeredAt: string;
  registeredBy: string;
  statusChangedAt: string | null;
  /** The definition exactly as registered (without projectId). */
  definition: RawJson;
};

export type GuardrailSummary = {
  guardrailId: string;
  projectId: string;
  latestVersion: string;
  name: string;
  description: string;
  action: GuardrailDefinition["action"];
  checkKind: GuardrailDefinition["check"]["kind"];
  tags: string[];
  registeredAt: string;
};

const definitionOf = (row: Pick<CatalogVersionRow, "document">): GuardrailDefinition => JSON.parse(row.document) as GuardrailDefinition;

const guardrailVersionView = (row: CatalogVersionRow): GuardrailVersionView => ({
  guardrailId: row.entryId,
  version: row.version,
  projectId: row.projectId,
  status: row.status,
  isLatest: row.isLatest,
  registeredAt: row.registeredAt.toISOString(),
  registeredBy: row.registeredBy,
  statusChangedAt: row.statusChangedAt?.toISOString() ?? null,
  definition: new RawJson(row.document),
});

function summary(row: CatalogListRow, document: string): GuardrailSummary {
  const definition = definitionOf({ document });
  return {
    guardrailId: row.entryId,
    projectId: row.projectId,
    latestVersion: row.version,
    name: row.name ?? row.entryId,
    description: row.description ?? "",
    action: definition.action,
    checkKind: definition.check.kind,
    tags: row.tags,
    registeredAt: row.registeredAt.toISOString(),
  };
}


/**
 * The project a registration without `projectId` goes to: the key's project, else the tenant's default project.
 * A given `projectId` is passed on as is (the catalog checks it is a project of the caller's tenant).
 */
async function projectOrDefault(actor: Actor, projectId: unknown): Promise<unknown> {
  if (projectId !== undefined) return projectId;
  if (actor.projectId) return actor.projectId;
  const db = await getDb();
  const tenant = await db.tenant.findUnique({ where: { id: actor.tenantId }, select: { defaultProjectId: true } });
  if (!tenant?.defaultProjectId) throw new AppError("bad-input", "the tenant has no default project; pass projectId", { issues: [{ path: "/projectId", message: "is required" }] });
  return tenant.defaultProjectId;
}

/**
 * Registers a guardrail version (POST /v1/guardrails): validates the definition, then stores it exactly as sent,
 * without `projectId`, in the given project (default: the key's project, else the tenant's default project).
 */
export async function registerGuardrail(actor: Actor, body: Record<string, unknown>): Promise<{ guardrailId: string; version: string }> {
  const { projectId, ...definition } = body;
  const result = validateGuardrailDefinition(definition);
  const project = await projectOrDefault(actor, projectId);
  if (!result.ok) return refuseInvalidDocument(actor, project, "the guardrail definition", result.issues);
  const guardrail = result.definition;
  const row = await registerCatalogVersion(actor, {
    kind: "guardrail",
    projectId: project,
    entryId: guardrail.id,
    version: guardrail.version,
    document: JSON.stringify(definition),
    name: guardrail.name,
    description: guardrail.description,
    tags: guardrail.tags ?? [],
  });
  return { guardrailId: row.entryId, version: row.version };
}

/** Guardrails the actor can see (latest active version of each), ordered by id; `q` searches id, name, description and tags. */
export async function listGuardrails(actor: Actor, filters: Pick<CatalogFilters, "projectId" | "q" | "tag">, page: { limit: number; cursor?: string }): Promise<Page<GuardrailSummary>> {
  const result = await listCatalog(actor, "guardrail", filters, page);
  const documents = await documentsById(result.data.map((row) => row.id));
  return { ...result, data: result.data.map((row) => summary(row, documents.get(row.id)!)) };
}

/** A guardrail: its latest active version (null when every version is unregistered) and all its versions, newest first. */
export async function getGuardrail(actor: Actor, guardrailId: string) {
  const { entry, latest, versions } = await getCatalogEntry(actor, "guardrail", guardrailId);
  return {
    guardrailId: entry.entryId,
    projectId: entry.projectId,
    latestVersion: entry.latestVersion,
    latest: latest ? guardrailVersionView(latest) : null,
    versions: versions.map(catalogVersionSummary),
    createdAt: entry.createdAt.toISOString(),
  };
}

/** A guardrail's versions newest first (by semver); the cursor is the last version shown. */
export async function listGuardrailVersions(actor: Actor, guardrailId: string, page: { limit: number; cursor?: string }) {
  return listCatalogVersions(actor, "guardrail", guardrailId, page);
}

/** One version with its definition exactly as registered (unregistered versions stay readable). */
export async function getGuardrailVersion(actor: Actor, guardrailId: string, version: string): Promise<GuardrailVersionView> {
  return guardrailVersionView(await getCatalogVersion(actor, "guardrail", guardrailId, requireSemverVersion(version)));
}

/** Unregisters (hides from lists and from resolution) or reinstates a version; doing it twice answers the same state. */
export async function setGuardrailVersionStatus(actor: Actor, guardrailId: string, version: string, status: "active" | "unregistered"): Promise<GuardrailVersionView> {
  return guardrailVersionView(await setCatalogVersionStatus(actor, "guardrail", guardrailId, requireSemverVersion(version), status));
}

/**
 * Resolves an agent's guardrail ids for a turn: each distinct id (in the order given) to the highest ACTIVE version
 * of that guardrail in the scope's tenant and project — the version marked latest, which the catalog keeps as the
 * highest active one by semver. An id with no active version there (never registered, every version unregistered,
 * registered in another project or tenant) is listed in `missing`; the kernel decides what a missing guardrail
 * means for the turn. Pass `db` to read inside a transaction.
 */
export async function resolveGuardrails(scope: { tenantId: string; projectId: string }, ids: readonly string[], db?: DbTx | Promise<DbTx>): Promise<{ resolved: ResolvedGuardrail[]; missing: string[] }> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return { resolved: [], missing: [] };
  if (!db) {
    // Under the tenant's generation (registering or unregistering a version bumps it).
    const found = await cached(scope.tenantId, `guardrails:${scope.projectId}:${JSON.stringify(distinct)}`, () => resolveGuardrails(scope, distinct, getDb()), "catalog");
    return { resolved: [...found.resolved], missing: [...found.missing] };
  }
  const client = await db;
  const rows = await client.catalogVersion.findMany({
    where: { tenantId: scope.tenantId, projectId: scope.projectId, kind: "guardrail", isLatest: true, entryId: { in: distinct } },
    select: { entryId: true, version: true, document: true },
  });
  const latest = new Map(rows.map((row) => [row.entryId, row]));
  const resolved: ResolvedGuardrail[] = [];
  const missing: string[] = [];
  for (const id of distinct) {
    const row = latest.get(id);
    if (row) resolved.push({ id, version: row.version, definition: definitionOf(row) });
    else missing.push(id);
  }
  return { resolved, missing };
}
