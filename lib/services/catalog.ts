import semver from "semver";
import { getDb, getRawQuery, type DbTx } from "@/lib/db";
import { AppError, notFound, type ErrorCode, type Issue } from "@/lib/errors";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { RawJson } from "@/lib/json";
import { randomUUID } from "node:crypto";
import { BoundedMap } from "@/lib/services/bounded-map";
import { type Actor, projectFilter, requireWrite, resolveWritableProject, resolveWritableProjectWith } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { SEMVER_VERSION_PATTERN } from "@/lib/agents/agent-schema";
import { bumpGeneration, cached, generationChanged, invalidateTenant } from "@/lib/services/tenant-generation";

/**
 * The catalog: tools, agents and guardrails share one storage shape — an id living in one project, with many
 * versions, the highest active one marked latest. Versions are never deleted: unregister hides, reinstate restores.
 */
export type CatalogKind = "tool" | "agent" | "guardrail";

const codes: Record<CatalogKind, { alreadyRegistered: ErrorCode; projectMismatch: ErrorCode }> = {
  tool: { alreadyRegistered: "tool-already-registered", projectMismatch: "tool-project-mismatch" },
  agent: { alreadyRegistered: "agent-already-registered", projectMismatch: "agent-project-mismatch" },
  guardrail: { alreadyRegistered: "guardrail-already-registered", projectMismatch: "guardrail-project-mismatch" },
};

const FULL_SEMVER = new RegExp(SEMVER_VERSION_PATTERN);

/**
 * Newest first by semver. Loose, so that a version stored before registration refused leading zeros (`01.0.0`)
 * still sorts instead of failing every read of its entry.
 */
const newestFirst = (a: string, b: string) => semver.rcompare(a, b, true);

/**
 * An agent or guardrail version in a path is full semver (prerelease and build allowed, unlike tool versions);
 * anything else is 400 bad-input before any database access.
 */
export function requireSemverVersion(version: string): string {
  if (!FULL_SEMVER.test(version)) throw new AppError("bad-input", "malformed version", { issues: [{ path: "/version", message: "must be a semver version such as 1.2.3 or 1.2.3-beta.1" }] });
  return version;
}

/**
 * Refuses a registration whose document has problems, without dropping a problem of its `projectId`: when the
 * projectId is missing, malformed or not a project the caller may write to, the answer is 400 `bad-input` (as for a
 * valid document) with the projectId issue first and the document's issues after it; otherwise it is 400
 * `validation-failed` with the document's issues. `what` names the document ("the manifest").
 */
export async function refuseInvalidDocument(actor: Actor, projectId: unknown, what: string, issues: Issue[], extra: Record<string, unknown> = {}): Promise<never> {
  const summary = `${issues.length} problem(s), first: ${issues[0].path || "/"} ${issues[0].message}`;
  try {
    await resolveWritableProject(await getDb(), actor, projectId);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "bad-input") throw error;
    const projectIssues = (error.details?.issues as Issue[] | undefined) ?? [{ path: "/projectId", message: error.message }];
    throw new AppError("bad-input", `${error.message}; ${what} is not valid either: ${summary}`, { ...extra, issues: [...projectIssues, ...issues] });
  }
  throw new AppError("validation-failed", `${what} is not valid: ${summary}`, { ...extra, issues });
}

export type CatalogVersionRow = {
  id: string;
  projectId: string;
  entryId: string;
  version: string;
  name: string | null;
  description: string | null;
  tags: string[];
  mutating: boolean | null;
  transport: string | null;
  effectKinds: string[];
  document: string;
  /** Tools with an `oci` handler artifact: the manifest digest its imageRef resolved to at registration. */
  artifactDigest: string | null;
  status: string;
  isLatest: boolean;
  registeredBy: string;
  registeredAt: Date;
  statusChangedAt: Date | null;
};

export type NewCatalogVersion = {
  kind: CatalogKind;
  projectId: unknown;
  entryId: string;
  version: string;
  /** The document as registered, JSON text. */
  document: string;
  /** Tools with an `oci` handler artifact: the manifest digest its imageRef resolved to. */
  artifactDigest?: string;
  name?: string;
  description?: string;
  tags?: string[];
  mutating?: boolean;
  transport?: string;
  effectKinds?: string[];
};

/** Recomputes which version of the entry is latest; the caller holds the entry's row lock. */
async function refreshLatest(tx: DbTx, entryRowId: string): Promise<string | null> {
  const versions = await tx.catalogVersion.findMany({ where: { entryRowId, status: "active" }, select: { version: true } });
  const latest = versions.map((row) => row.version).sort(newestFirst)[0] ?? null;
  await tx.catalogVersion.updateMany({ where: { entryRowId, isLatest: true, ...(latest ? { NOT: { version: latest } } : {}) }, data: { isLatest: false } });
  if (latest) await tx.catalogVersion.updateMany({ where: { entryRowId, version: latest }, data: { isLatest: true } });
  await tx.catalogEntry.update({ where: { id: entryRowId }, data: { latestVersion: latest } });
  return latest;
}

/** Projects known to exist, by tenant and id: no project is ever deleted, so a project found stays found. */
const knownProjects = new BoundedMap<string, true>(10_000);
async function projectExists(tenantId: string, id: string): Promise<boolean> {
  const key = `${tenantId}:${id}`;
  if (knownProjects.get(key)) return true;
  const found = (await (await getDb()).project.findFirst({ where: { id, tenantId }, select: { id: true } })) !== null;
  if (found) knownProjects.set(key, true);
  return found;
}

/**
 * Registers a new version; 409 when the id and version exist or the id lives in another project. In one transaction
 * of few statements: the entry upserted and locked (RETURNING its project), the version inserted (RETURNING, with the
 * entry's active versions), the latest marks moved only when the new version is the highest (computed here), the
 * audit event, the generation bump.
 */
export async function registerCatalogVersion(actor: Actor, input: NewCatalogVersion): Promise<CatalogVersionRow> {
  requireWrite(actor);
  const projectId = await resolveWritableProjectWith(actor, input.projectId, (id) => projectExists(actor.tenantId, id));
  const db = await getDb();
  const versionId = randomUUID();
  const tags = input.tags ?? [];
  const effectKinds = input.effectKinds ?? [];
  const entryKey = JSON.stringify([actor.tenantId, input.kind, input.entryId]);
  // An id this process has seen registered goes straight to the entry's transaction (entries are never deleted).
  const first = knownEntries.get(entryKey) ? null : await registerNewEntry(actor, input, projectId, versionId, tags, effectKinds);
  knownEntries.set(entryKey, true);
  if (first) return first;
  return db.$transaction(async (tx) => {
    // One statement: the entry upserted, which locks its row so concurrent registrations of one id serialize (created
    // with this version as its latest when new), and the version inserted when the entry lives in the caller's project.
    const [entry] = await tx.$queryRawUnsafe<{ id: string; projectId: string; created: boolean; registeredAt: Date | string | null }[]>(
      `WITH entry AS (
         INSERT INTO "CatalogEntry" ("id", "tenantId", "projectId", "kind", "entryId", "latestVersion") VALUES ($16::uuid, $2::uuid, $3::uuid, $4, $5, $6)
         ON CONFLICT ("tenantId", "kind", "entryId") DO UPDATE SET "updatedAt" = CURRENT_TIMESTAMP
         RETURNING "id", "projectId", (xmax = 0) AS "created"),
       inserted AS (
         INSERT INTO "CatalogVersion" ("id", "tenantId", "projectId", "entryRowId", "kind", "entryId", "version", "name", "description", "tags", "searchText", "mutating", "transport", "effectKinds", "document", "registeredBy", "isLatest", "artifactDigest")
         SELECT $1::uuid, $2::uuid, $3::uuid, entry."id", $4, $5, $6, $7, $8, $9::text[], $10, $11, $12, $13::text[], $14, $15::uuid, entry."created", $17 FROM entry WHERE entry."projectId" = $3::uuid
         ON CONFLICT ("tenantId", "kind", "entryId", "version") DO NOTHING
         RETURNING "registeredAt")
       SELECT entry."id"::text AS "id", entry."projectId"::text AS "projectId", entry."created", (SELECT "registeredAt" FROM inserted) AS "registeredAt" FROM entry`,
      versionId, actor.tenantId, projectId, input.kind, input.entryId, input.version, input.name ?? null, input.description ?? null, tags,
      [input.entryId, input.name ?? "", input.description ?? "", ...tags].join("\n").toLowerCase(), input.mutating ?? null, input.transport ?? null, effectKinds, input.document, actor.userId,
      randomUUID(), input.artifactDigest ?? null,
    );
    if (entry.projectId !== projectId)
      throw new AppError(codes[input.kind].projectMismatch, `${input.kind} ${JSON.stringify(input.entryId)} is registered in another project of this tenant`, { [`${input.kind}Id`]: input.entryId });
    if (entry.registeredAt === null)
      throw new AppError(codes[input.kind].alreadyRegistered, `${input.kind} ${JSON.stringify(input.entryId)} version ${input.version} is registered already`, { [`${input.kind}Id`]: input.entryId, version: input.version });
    let isLatest = entry.created;
    if (!entry.created) {
      // An existing entry: its active versions read now, under its lock (a statement of their own, so that versions
      // committed while this one waited for the lock are seen); the latest computed here.
      const [{ active }] = await tx.$queryRawUnsafe<{ active: string[] }[]>(`SELECT ARRAY(SELECT "version" FROM "CatalogVersion" WHERE "entryRowId" = $1::uuid AND "status" = 'active') AS "active"`, entry.id);
      isLatest = [...active].sort(newestFirst)[0] === input.version;
    }
    // One statement: the latest marked (when this version is it) and the audit entry.
    await tx.$executeRawUnsafe(
      `WITH marks AS (UPDATE "CatalogVersion" SET "isLatest" = ("id" = $2::uuid) WHERE $4::boolean AND "entryRowId" = $1::uuid AND ("isLatest" OR "id" = $2::uuid) RETURNING 1),
         latest AS (UPDATE "CatalogEntry" SET "latestVersion" = $3 WHERE $4::boolean AND "id" = $1::uuid RETURNING 1),
         audited AS (INSERT INTO "AuditEvent" ("id", "tenantId", "projectId", "actorId", "action", "subjectType", "subjectId") VALUES ($5::uuid, $6::uuid, $7::uuid, $8, $9, $10, $11))
       SELECT 1`,
      entry.id, versionId, input.version, isLatest && !entry.created, randomUUID(), actor.tenantId, projectId, actor.userId, `${input.kind}.registered`, input.kind, `${input.entryId}@${input.version}`,
    );
    bumpGeneration(tx, actor.tenantId, "catalog");
    return {
      id: versionId,
      projectId,
      entryId: input.entryId,
      version: input.version,
      name: input.name ?? null,
      description: input.description ?? null,
      tags,
      mutating: input.mutating ?? null,
      transport: input.transport ?? null,
      effectKinds,
      document: input.document,
      artifactDigest: input.artifactDigest ?? null,
      status: "active",
      isLatest,
      registeredBy: actor.userId,
      registeredAt: new Date(entry.registeredAt),
      statusChangedAt: null,
    };
  });
}

/**
 * The first version of an id not registered yet, in one statement outside any transaction: the entry (with this
 * version as its latest), the version and the audit entry (the other servers are told once it has committed). Null, with
 * nothing written, when the id is registered already: the entry's lock, its versions and the latest are then the
 * transaction's business.
 */
async function registerNewEntry(actor: Actor, input: NewCatalogVersion, projectId: string, versionId: string, tags: string[], effectKinds: string[]): Promise<CatalogVersionRow | null> {
  const raw = await getRawQuery();
  invalidateTenant(actor.tenantId, "catalog");
  const sql = `/* kindgi:catalog register-new */
    WITH entry AS (
      INSERT INTO "CatalogEntry" ("id", "tenantId", "projectId", "kind", "entryId", "latestVersion") VALUES ($16::uuid, $2::uuid, $3::uuid, $4, $5, $6)
      ON CONFLICT ("tenantId", "kind", "entryId") DO NOTHING
      RETURNING "id"),
    inserted AS (
      INSERT INTO "CatalogVersion" ("id", "tenantId", "projectId", "entryRowId", "kind", "entryId", "version", "name", "description", "tags", "searchText", "mutating", "transport", "effectKinds", "document", "registeredBy", "isLatest", "artifactDigest")
      SELECT $1::uuid, $2::uuid, $3::uuid, entry."id", $4, $5, $6, $7, $8, ARRAY(SELECT jsonb_array_elements_text($9::jsonb)), $10, $11::boolean, $12, ARRAY(SELECT jsonb_array_elements_text($13::jsonb)), $14, $15::uuid, true, $20 FROM entry
      RETURNING "registeredAt"),
    audited AS (
      INSERT INTO "AuditEvent" ("id", "tenantId", "projectId", "actorId", "action", "subjectType", "subjectId")
      SELECT $17::uuid, $2::uuid, $3::uuid, $19, $18, $4, $5 || '@' || $6 FROM inserted)
    SELECT "registeredAt" FROM inserted`;
  const params = [
    versionId, actor.tenantId, projectId, input.kind, input.entryId, input.version, input.name ?? null, input.description ?? null, JSON.stringify(tags),
    [input.entryId, input.name ?? "", input.description ?? "", ...tags].join("\n").toLowerCase(), input.mutating ?? null, input.transport ?? null, JSON.stringify(effectKinds), input.document, actor.userId,
    randomUUID(), randomUUID(), `${input.kind}.registered`, actor.userId, input.artifactDigest ?? null,
  ];
  try {
    const [row] = await raw<{ registeredAt: Date | string }>(sql, params);
    if (!row) return null;
    return { id: versionId, projectId, entryId: input.entryId, version: input.version, name: input.name ?? null, description: input.description ?? null, tags, mutating: input.mutating ?? null, transport: input.transport ?? null, effectKinds, document: input.document, artifactDigest: input.artifactDigest ?? null, status: "active", isLatest: true, registeredBy: actor.userId, registeredAt: new Date(row.registeredAt), statusChangedAt: null };
  } finally {
    await generationChanged(actor.tenantId, "catalog");
  }
}

export type CatalogFilters = { projectId?: string; q?: string; effect?: string; mutating?: boolean; transport?: string; tag?: string };

/** A list row: every column but the document. */
export type CatalogListRow = Omit<CatalogVersionRow, "document">;
const listSelect = { id: true, projectId: true, entryId: true, version: true, name: true, description: true, tags: true, mutating: true, transport: true, effectKinds: true, artifactDigest: true, status: true, isLatest: true, registeredBy: true, registeredAt: true, statusChangedAt: true } as const;

/** Entries this process has seen registered, by tenant, kind and id (a hint: an entry is never deleted). */
const knownEntries = new BoundedMap<string, true>(20_000);

/** Catalog versions are immutable documents: each is read from the database once per process (bounded). */
const documents = new BoundedMap<string, { id: string; document: string; artifactDigest?: string | null }>(5000);

/**
 * The document of one registered version (any status: a version unregistered after a run started still runs to its
 * end), by tenant, project, kind, id and version; null when there is none (not cached).
 */
export async function catalogDocument(scope: { tenantId: string; projectId: string }, kind: CatalogKind, entryId: string, version: string): Promise<{ id: string; document: string; artifactDigest?: string | null } | null> {
  const key = JSON.stringify([scope.tenantId, scope.projectId, kind, entryId, version]);
  const hit = documents.get(key);
  if (hit) return hit;
  const db = await getDb();
  const row = await db.catalogVersion.findFirst({ where: { tenantId: scope.tenantId, projectId: scope.projectId, kind, entryId, version }, select: { id: true, document: true, artifactDigest: true } });
  if (row) documents.set(key, row);
  return row;
}

/** The documents of versions by row id, read from the database only for those not held already. */
export async function documentsById(ids: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const missing: string[] = [];
  for (const id of ids) {
    const hit = documents.get(`id:${id}`);
    if (hit) found.set(id, hit.document);
    else missing.push(id);
  }
  if (missing.length) {
    const db = await getDb();
    for (const row of await db.catalogVersion.findMany({ where: { id: { in: missing } }, select: { id: true, document: true } })) {
      documents.set(`id:${row.id}`, row);
      found.set(row.id, row.document);
    }
  }
  return found;
}

/** Latest active version of each entry the actor can see, ordered by id; the documents are not read. */
export async function listCatalog(actor: Actor, kind: CatalogKind, filters: CatalogFilters, page: { limit: number; cursor?: string }): Promise<Page<CatalogListRow>> {
  const after = decodeCursor(page.cursor) as [string] | undefined;
  // A page under the tenant's catalog generation: any registration or status change of this server empties it at
  // once, one of another server within the generation's window.
  return cached(actor.tenantId, `list:${catalogPageKey(actor, kind, filters, page)}`, () => readCatalogPage(actor, kind, filters, page, after), "catalog");
}

/**
 * A page of the catalog as `present` shows it, kept as its JSON text under the same generation as {@link listCatalog}:
 * a repeated read is answered with that text, with no rows to map and nothing to serialize again.
 */
export async function listCatalogJson<T>(actor: Actor, kind: CatalogKind, filters: CatalogFilters, page: { limit: number; cursor?: string }, present: (page: Page<CatalogListRow>) => Promise<Page<T>>): Promise<RawJson<Page<T>>> {
  const after = decodeCursor(page.cursor) as [string] | undefined;
  return cached(actor.tenantId, `list-json:${catalogPageKey(actor, kind, filters, page)}`, async () => new RawJson<Page<T>>(JSON.stringify(await present(await readCatalogPage(actor, kind, filters, page, after)))), "catalog");
}

const catalogPageKey = (actor: Actor, kind: CatalogKind, filters: CatalogFilters, page: { limit: number; cursor?: string }) =>
  `${kind}:${actor.projectId ?? ""}:${JSON.stringify([filters.projectId, filters.q, filters.effect, filters.mutating, filters.transport, filters.tag, page.limit, page.cursor])}`;

async function readCatalogPage(actor: Actor, kind: CatalogKind, filters: CatalogFilters, page: { limit: number; cursor?: string }, after: [string] | undefined): Promise<Page<CatalogListRow>> {
  const db = await getDb();
  const rows = await db.catalogVersion.findMany({
    where: {
      tenantId: actor.tenantId,
      kind,
      isLatest: true,
      ...projectFilter(actor, filters.projectId),
      ...(filters.q ? { searchText: { contains: filters.q.toLowerCase() } } : {}),
      ...(filters.effect ? { effectKinds: { has: filters.effect } } : {}),
      ...(filters.mutating !== undefined ? { mutating: filters.mutating } : {}),
      ...(filters.transport ? { transport: filters.transport } : {}),
      ...(filters.tag ? { tags: { has: filters.tag } } : {}),
      ...(after ? { entryId: { gt: String(after[0]) } } : {}),
    },
    orderBy: { entryId: "asc" },
    take: page.limit + 1,
    select: listSelect,
  });
  return toPage(rows, page.limit, (row) => [row.entryId], (row) => row);
}

async function findEntry(actor: Actor, kind: CatalogKind, entryId: string) {
  const db = await getDb();
  const entry = await db.catalogEntry.findUnique({ where: { tenantId_kind_entryId: { tenantId: actor.tenantId, kind, entryId } } });
  if (!entry || (actor.projectId && entry.projectId !== actor.projectId)) throw notFound(kind, entryId);
  return entry;
}

/** The entry with its latest active version (null when all are unregistered) and every version, newest first. */
export async function getCatalogEntry(actor: Actor, kind: CatalogKind, entryId: string) {
  const entry = await findEntry(actor, kind, entryId);
  const db = await getDb();
  const versions = (await db.catalogVersion.findMany({ where: { entryRowId: entry.id } })).sort((a, b) => newestFirst(a.version, b.version));
  return { entry, latest: versions.find((row) => row.isLatest) ?? null, versions };
}

export async function getCatalogVersion(actor: Actor, kind: CatalogKind, entryId: string, version: string): Promise<CatalogVersionRow> {
  const entry = await findEntry(actor, kind, entryId);
  const db = await getDb();
  const row = await db.catalogVersion.findFirst({ where: { entryRowId: entry.id, version } });
  if (!row) throw notFound(`${kind} version`, `${entryId}@${version}`);
  return row;
}

/** Unregisters or reinstates a version; doing it twice answers the same state again. */
export async function setCatalogVersionStatus(actor: Actor, kind: CatalogKind, entryId: string, version: string, status: "active" | "unregistered"): Promise<CatalogVersionRow> {
  requireWrite(actor);
  const existing = await findEntry(actor, kind, entryId);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    await tx.catalogEntry.update({ where: { id: existing.id }, data: { updatedAt: new Date() } });
    const row = await tx.catalogVersion.findFirst({ where: { entryRowId: existing.id, version } });
    if (!row) throw notFound(`${kind} version`, `${entryId}@${version}`);
    if (row.status !== status) {
      await tx.catalogVersion.update({ where: { id: row.id }, data: { status, statusChangedAt: new Date() } });
      await refreshLatest(tx, existing.id);
      bumpGeneration(tx, actor.tenantId, "catalog");
      await audit(tx, actor, { action: `${kind}.${status === "active" ? "reinstated" : "unregistered"}`, subjectType: kind, subjectId: `${entryId}@${version}`, projectId: row.projectId });
    }
    return tx.catalogVersion.findUniqueOrThrow({ where: { id: row.id } });
  });
}

/**
 * An agent's choice of what an expired approval does (`reject`, `fail`, or null for the deployment's default). Not
 * versioned: it applies to approvals asked from now on, whatever version the run uses. Setting the same value again
 * changes nothing and records nothing.
 */
export async function setAgentExpiryChoice(actor: Actor, entryId: string, choice: "reject" | "fail" | null) {
  requireWrite(actor);
  const existing = await findEntry(actor, "agent", entryId);
  if (existing.onApprovalExpired === choice) return existing;
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const updated = await tx.catalogEntry.update({ where: { id: existing.id }, data: { onApprovalExpired: choice } });
    await audit(tx, actor, { action: "agent.approval-expiry-changed", subjectType: "agent", subjectId: entryId, projectId: existing.projectId, data: { from: existing.onApprovalExpired, to: choice } });
    return updated;
  });
}

/** A version in a list of versions: its state, without the document. */
export const catalogVersionSummary = (row: CatalogVersionRow) => ({ version: row.version, status: row.status, isLatest: row.isLatest, registeredAt: row.registeredAt.toISOString(), statusChangedAt: row.statusChangedAt?.toISOString() ?? null });

/** An entry's versions newest first (by semver), as summaries; the cursor is the last version shown. */
export async function listCatalogVersions(actor: Actor, kind: CatalogKind, entryId: string, page: { limit: number; cursor?: string }) {
  const { versions } = await getCatalogEntry(actor, kind, entryId);
  const after = decodeCursor(page.cursor)?.[0];
  if (after !== undefined && (typeof after !== "string" || !semver.valid(after, true)))
    throw new AppError("bad-input", "cursor is not one this API returned", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
  const start = after ? versions.findIndex((row) => semver.lt(row.version, after, true)) : 0;
  return toPage(start < 0 ? [] : versions.slice(start, start + page.limit + 1), page.limit, (row) => [row.version], catalogVersionSummary);
}
