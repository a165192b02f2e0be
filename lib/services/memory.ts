/**
 * The memory store: facts an agent is grounded with before each turn (retrieval intents) and that the `remember` and
 * `recall` tools write and read during one. Three ways to match (a retrieval intent's `mode`):
 * - `keyword`: PostgreSQL full-text search (`to_tsvector('english', content)`, GIN-indexed): the query's lexemes
 *   OR-ed, ranked by `ts_rank`, then newest;
 * - `semantic`: the facts' vectors from one embedding model (lib/services/fact-embeddings.ts embeds them in the
 *   background) ranked by cosine similarity to the query's vector, computed exactly in the database; a fact with no
 *   vector from that model yet is skipped (and counted);
 * - `both`: the two rankings fused by reciprocal rank (each list's rank r adds 1 / (60 + r)).
 */
import { getDb, type DbTx } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { AppError, notFound, type Issue } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { MAX_RETRIEVAL_LIMIT } from "@/lib/agents/agent-schema";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { type Actor, projectFilter, requireWrite, resolveWritableProject } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { announceNewFacts, cosineSql, factEmbeddingStatus, type FactEmbeddingStatus } from "@/lib/services/fact-embeddings";

/** A fact type: a lowercase slug such as `note`, `preference` or `crm.contact`. */
export const FACT_TYPE_PATTERN = "^[a-z0-9][a-z0-9._-]*$";
export const MAX_FACT_TYPE_LENGTH = 64;
export const MAX_FACT_CONTENT_LENGTH = 8000;
/** Facts one retrieval or search returns at most (an agent's retrieval `limit` is refused above it). */
export const MAX_FACTS_PER_SEARCH = MAX_RETRIEVAL_LIMIT;
const DEFAULT_FACTS_PER_SEARCH = 10;
/** Only the start of a long query text is searched for (a whole pasted document would be a query of thousands of terms). */
const MAX_QUERY_TEXT_LENGTH = 8000;

export type FactView = {
  id: string;
  type: string;
  content: string;
  projectId: string;
  conversationId: string | null;
  /** "api" (POST /v1/memory/facts) or "tool" (the remember tool in a run). */
  source: string;
  runId: string | null;
  createdBy: string;
  createdAt: string;
};

/** Where a run's facts live and which of them it may see: the run's tenant, project and conversation. */
export type FactScope = { tenantId: string; projectId: string; conversationId: string | null };

/** How far a search reaches: the conversation's facts, the project's, or the whole tenant's. */
export type FactSearchScope = "same-conversation" | "same-project" | "tenant";

/** How a retrieval matches facts to the turn. */
export type RetrievalMode = "keyword" | "semantic" | "both";
export const RETRIEVAL_MODES: readonly RetrievalMode[] = ["keyword", "semantic", "both"];

/**
 * A fact a search found: `foundBy` the ranking(s) that found it, `score` its place in the ranking that ordered the
 * answer — `ts_rank` (keyword), cosine similarity (semantic), the fused reciprocal-rank score (both); higher is better.
 */
export type RetrievedFact = { id: string; type: string; content: string; conversationId: string | null; createdAt: string; rank: number; score: number; foundBy: RetrievalMode };

/** The query's vector, and the embedding model that made it (only that model's fact vectors are compared). */
export type QueryEmbedding = { vector: number[]; providerId: string; model: string; inputTokens?: number; costUsd?: number };

type FactRow = { id: string; type: string; content: string; projectId: string; conversationId: string | null; source: string; runId: string | null; createdBy: string; createdAt: Date };
type RankedRow = FactRow & { rank: number };

const factView = (row: FactRow): FactView => ({
  id: row.id,
  type: row.type,
  content: row.content,
  projectId: row.projectId,
  conversationId: row.conversationId,
  source: row.source,
  runId: row.runId,
  createdBy: row.createdBy,
  createdAt: row.createdAt.toISOString(),
});

const retrievedFact = (row: RankedRow, foundBy: RetrievalMode = "keyword", score = row.rank): RetrievedFact => ({ id: row.id, type: row.type, content: row.content, conversationId: row.conversationId, createdAt: row.createdAt.toISOString(), rank: row.rank, score, foundBy });

const FACT_TYPE = new RegExp(FACT_TYPE_PATTERN);

/** Problems with a fact's type and content, at `/type` and `/content`; [] when it can be stored. */
export function factIssues(fact: { type: unknown; content: unknown }): Issue[] {
  const issues: Issue[] = [];
  const { type, content } = fact;
  if (typeof type !== "string" || type.length < 1 || type.length > MAX_FACT_TYPE_LENGTH || !FACT_TYPE.test(type))
    issues.push({ path: "/type", message: `must be a lowercase slug of 1 to ${MAX_FACT_TYPE_LENGTH} characters: letters, digits, ".", "_" and "-", starting with a letter or digit` });
  if (typeof content !== "string" || content.trim() === "" || content.length > MAX_FACT_CONTENT_LENGTH)
    issues.push({ path: "/content", message: `must be text of 1 to ${MAX_FACT_CONTENT_LENGTH} characters, not only white space` });
  else if (content.includes("\u0000")) issues.push({ path: "/content", message: "must not contain the NUL character (U+0000)" });
  return issues;
}

function requireValidFact(fact: { type: unknown; content: unknown }): { type: string; content: string } {
  const issues = factIssues(fact);
  if (issues.length) throw new AppError("bad-input", issues.map((issue) => `${issue.path} ${issue.message}`).join("; "), { issues });
  return fact as { type: string; content: string };
}

const FACT_SELECT = { id: true, type: true, content: true, projectId: true, conversationId: true, source: true, runId: true, createdBy: true, createdAt: true } as const;

/**
 * Stores a fact (POST /v1/memory/facts). With a conversation, the fact belongs to the conversation's project
 * (`projectId` may repeat it, nothing else); without one, `projectId` names a project the caller may write to.
 */
export async function createFact(actor: Actor, input: { type: unknown; content: unknown; projectId?: unknown; conversationId?: unknown }): Promise<FactView> {
  requireWrite(actor);
  const fact = requireValidFact(input);
  const db = await getDb();
  const created = await db.$transaction(async (tx) => {
    let projectId: string;
    let conversationId: string | null = null;
    if (input.conversationId !== undefined) {
      if (typeof input.conversationId !== "string" || !isUuid(input.conversationId))
        throw new AppError("bad-input", "conversationId must be a UUID", { issues: [{ path: "/conversationId", message: "must be a UUID" }] });
      const conversation = await tx.conversation.findFirst({ where: { id: input.conversationId.toLowerCase(), tenantId: actor.tenantId }, select: { id: true, projectId: true } });
      if (!conversation || (actor.projectId && conversation.projectId !== actor.projectId)) throw notFound("conversation", input.conversationId);
      if (input.projectId !== undefined && (typeof input.projectId !== "string" || input.projectId.toLowerCase() !== conversation.projectId)) {
        const message = "projectId must be the conversation's project (or be left out)";
        throw new AppError("bad-input", message, { issues: [{ path: "/projectId", message }] });
      }
      projectId = await resolveWritableProject(tx, actor, conversation.projectId);
      conversationId = conversation.id;
    } else {
      projectId = await resolveWritableProject(tx, actor, input.projectId);
    }
    const row = await tx.memoryFact.create({
      data: { tenantId: actor.tenantId, projectId, conversationId, type: fact.type, content: fact.content, source: "api", createdBy: actor.userId },
      select: FACT_SELECT,
    });
    await audit(tx, actor, { action: "memory.fact.created", subjectType: "memory-fact", subjectId: row.id, projectId, data: { type: row.type } });
    return factView(row);
  });
  announceNewFacts({ tenantId: actor.tenantId, projectId: created.projectId });
  return created;
}

export type FactFilters = { projectId?: string; conversationId?: string; type?: string; q?: string };

/**
 * The facts the caller can see, newest first; with `q`, only facts matching its keywords, best match first (then
 * newest). The cursor carries the sort key of the last fact shown, so pages never skip or repeat a fact.
 */
export async function listFacts(actor: Actor, filters: FactFilters, page: { limit: number; cursor?: string }): Promise<Page<FactView>> {
  const db = await getDb();
  const projects = projectFilter(actor, filters.projectId?.toLowerCase());
  if (typeof projects.projectId === "object") return { data: [], hasMore: false };
  const cursor = decodeCursor(page.cursor);
  if (filters.q !== undefined) {
    const after = cursor && rankedCursor(cursor);
    const conditions = [
      Prisma.sql`"tenantId" = ${actor.tenantId}::uuid`,
      ...(projects.projectId ? [Prisma.sql`"projectId" = ${projects.projectId}::uuid`] : []),
      ...(filters.conversationId ? [Prisma.sql`"conversationId" = ${filters.conversationId}::uuid`] : []),
      ...(filters.type ? [Prisma.sql`type = ${filters.type}`] : []),
    ];
    const rows = await rankedFacts(db, conditions, filters.q, page.limit + 1, after);
    return toPage(rows, page.limit, (row) => [row.rank, row.createdAt.toISOString(), row.id], factView);
  }
  const after = cursor && newestCursor(cursor);
  const rows = await db.memoryFact.findMany({
    where: {
      tenantId: actor.tenantId,
      ...projects,
      ...(filters.conversationId ? { conversationId: filters.conversationId } : {}),
      ...(filters.type ? { type: filters.type } : {}),
      ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
    select: FACT_SELECT,
  });
  return toPage(rows, page.limit, (row) => [row.createdAt.toISOString(), row.id], factView);
}

const malformedCursor = () => new AppError("bad-input", "cursor is not one this API returned", { issues: [{ path: "/cursor", message: "malformed cursor" }] });

function cursorTime(value: unknown): Date {
  const date = typeof value === "string" ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw malformedCursor();
  return date;
}

function newestCursor(key: unknown[]): { createdAt: Date; id: string } {
  const [createdAt, id] = key;
  if (key.length !== 2 || typeof id !== "string" || !isUuid(id)) throw malformedCursor();
  return { createdAt: cursorTime(createdAt), id };
}

type RankedCursor = { rank: number; createdAt: Date; id: string };

function rankedCursor(key: unknown[]): RankedCursor {
  const [rank, createdAt, id] = key;
  if (key.length !== 3 || typeof rank !== "number" || !Number.isFinite(rank) || typeof id !== "string" || !isUuid(id)) throw malformedCursor();
  return { rank, createdAt: cursorTime(createdAt), id };
}

/**
 * One fact the caller can see (another tenant's, or another project's for a narrowed key, is 404), with whether it
 * is embedded with its project's embedding model (and with what), or still waits.
 */
export async function getFact(actor: Actor, id: string): Promise<FactView & { embedding: FactEmbeddingStatus }> {
  const db = await getDb();
  const row = await db.memoryFact.findFirst({ where: { id, tenantId: actor.tenantId, ...projectFilter(actor) }, select: { ...FACT_SELECT, tenantId: true, embedAttempts: true, embedError: true, embedAfter: true } });
  if (!row) throw notFound("fact", id);
  return { ...factView(row), embedding: await factEmbeddingStatus(row) };
}

/** Forgets a fact: it is deleted for good, so no later retrieval can bring it back. */
export async function deleteFact(actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
  requireWrite(actor);
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const row = await tx.memoryFact.findFirst({ where: { id, tenantId: actor.tenantId, ...projectFilter(actor) }, select: { id: true, projectId: true, type: true } });
    if (!row) throw notFound("fact", id);
    await tx.memoryFact.delete({ where: { id: row.id } });
    await audit(tx, actor, { action: "memory.fact.deleted", subjectType: "memory-fact", subjectId: row.id, projectId: row.projectId, data: { type: row.type } });
    return { id: row.id, deleted: true as const };
  });
}

/**
 * Stores a fact a run learned (the `remember` tool): in the run's project and conversation, `source: "tool"`, with the
 * run's id. Pass the kernel's transaction as `db` so the fact is written with the step that records the call.
 */
export async function rememberFact(scope: FactScope & { runId: string; userId: string }, fact: { type: string; content: string }, db?: DbTx): Promise<FactView> {
  const valid = requireValidFact(fact);
  const client = db ?? (await getDb());
  const row = await client.memoryFact.create({
    data: { tenantId: scope.tenantId, projectId: scope.projectId, conversationId: scope.conversationId, type: valid.type, content: valid.content, source: "tool", runId: scope.runId, createdBy: scope.userId },
    select: FACT_SELECT,
  });
  // Heard after the caller's transaction commits (an embedder that looks before then finds it on its next pass).
  announceNewFacts(scope);
  return factView(row);
}

/** What a retrieval found, and how many facts in its reach had no vector from the query's model (not searched by meaning). */
export type Retrieval = { facts: RetrievedFact[]; skipped: number };

/**
 * The facts a retrieval intent grounds a turn with: facts of the intent's `types` in its scope matching `queryText`
 * (the turn's user message) by its `mode` (default keyword), best first. `semantic` and `both` need the query's
 * `embedding`; without one (its provider failed) `both` is keyword search and `semantic` finds nothing, every fact
 * in reach counted as skipped.
 */
export async function retrieveFacts(
  scope: FactScope,
  intent: { types: string[]; scope: FactSearchScope; limit?: number; mode?: RetrievalMode },
  queryText: string,
  options: { embedding?: QueryEmbedding | null; db?: DbTx } = {},
): Promise<Retrieval> {
  return searchFactsByMode(scope, { text: queryText, types: intent.types, limit: intent.limit ?? DEFAULT_FACTS_PER_SEARCH, scope: intent.scope, mode: intent.mode ?? "keyword", embedding: options.embedding ?? null }, options.db);
}

/** The conditions that keep a search to the facts a run may read (null: it may read none). */
function reachOf(scope: FactScope, query: { types?: string[]; scope: FactSearchScope }): Prisma.Sql[] | null {
  if (query.types && query.types.length === 0) return null;
  const conditions = [Prisma.sql`"tenantId" = ${scope.tenantId}::uuid`];
  if (query.scope === "same-conversation") {
    if (!scope.conversationId) return null;
    conditions.push(Prisma.sql`"conversationId" = ${scope.conversationId}::uuid`);
  } else if (query.scope === "same-project") {
    conditions.push(Prisma.sql`"projectId" = ${scope.projectId}::uuid`);
  }
  if (query.types) conditions.push(Prisma.sql`type IN (${Prisma.join(query.types)})`);
  return conditions;
}

const clampLimit = (limit: number) => Math.min(Math.max(Math.floor(limit) || DEFAULT_FACTS_PER_SEARCH, 1), MAX_FACTS_PER_SEARCH);

/** Reciprocal-rank fusion's constant: a list's rank r adds 1 / (RRF_K + r). */
const RRF_K = 60;

/**
 * Search by `mode` over the facts a run may read (retrieval and the `recall` tool): see {@link retrieveFacts}.
 * `both` fuses the keyword and the semantic rankings (each taken to twice the limit) by reciprocal rank.
 */
export async function searchFactsByMode(
  scope: FactScope,
  query: { text: string; types?: string[]; limit: number; scope: FactSearchScope; mode: RetrievalMode; embedding: QueryEmbedding | null },
  db?: DbTx,
): Promise<Retrieval> {
  const conditions = reachOf(scope, query);
  if (!conditions) return { facts: [], skipped: 0 };
  const limit = clampLimit(query.limit);
  const client = db ?? (await getDb());
  if (query.mode === "keyword") return { facts: (await rankedFacts(client, conditions, query.text, limit)).map((row) => retrievedFact(row)), skipped: 0 };
  const skipped = await unembeddedCount(client, conditions, query.embedding);
  if (query.mode === "semantic") {
    if (!query.embedding) return { facts: [], skipped };
    return { facts: (await similarFacts(client, conditions, query.embedding, limit)).map((row) => retrievedFact(row, "semantic", row.score)), skipped };
  }
  const depth = Math.min(limit * 2, MAX_FACTS_PER_SEARCH * 2);
  const [keyword, semantic] = await Promise.all([rankedFacts(client, conditions, query.text, depth), query.embedding ? similarFacts(client, conditions, query.embedding, depth) : Promise.resolve([])]);
  const fused = new Map<string, { row: RankedRow; score: number; foundBy: RetrievalMode }>();
  const add = (rows: RankedRow[], by: "keyword" | "semantic") =>
    rows.forEach((row, index) => {
      const seen = fused.get(row.id);
      const score = 1 / (RRF_K + index + 1);
      if (seen) fused.set(row.id, { row: seen.row, score: seen.score + score, foundBy: "both" });
      else fused.set(row.id, { row, score, foundBy: by });
    });
  add(keyword, "keyword");
  add(semantic, "semantic");
  const facts = [...fused.values()]
    .sort((a, b) => b.score - a.score || b.row.createdAt.getTime() - a.row.createdAt.getTime() || (a.row.id < b.row.id ? 1 : -1))
    .slice(0, limit)
    .map((entry) => retrievedFact(entry.row, entry.foundBy, entry.score));
  return { facts, skipped };
}

/**
 * Keyword search over the facts a run may read (the `recall` tool and retrieval): `same-conversation` reads the
 * run's conversation (nothing when the run has none), `same-project` its project, `tenant` the whole tenant.
 * `types` narrows to those fact types (an empty list matches nothing); `limit` is clamped to 1..100.
 */
export async function searchFacts(scope: FactScope, query: { text: string; types?: string[]; limit: number; scope: FactSearchScope }, db?: DbTx): Promise<RetrievedFact[]> {
  return (await searchFactsByMode(scope, { ...query, mode: "keyword", embedding: null }, db)).facts;
}

/** Facts a handler's `memory:<type>` slot returns by default, and at most. */
const DEFAULT_FACTS_PER_READ = 10;
const MAX_FACTS_PER_READ = 50;

/**
 * The project's facts of one type, as a pack handler's `memory:<type>` slot reads them (`recall`'s default scope,
 * the run's project): with a `query`, those sharing a keyword with it, best match first; without, the newest.
 * `limit` is clamped to 1..50 (default 10), as `recall`'s.
 */
export async function readProjectFacts(scope: { tenantId: string; projectId: string }, type: string, query: { text?: string; limit?: number }): Promise<Array<{ id: string; type: string; content: string; createdAt: string }>> {
  const limit = Math.min(Math.max(Math.floor(query.limit ?? DEFAULT_FACTS_PER_READ) || DEFAULT_FACTS_PER_READ, 1), MAX_FACTS_PER_READ);
  const shape = (fact: { id: string; type: string; content: string; createdAt: string }) => ({ id: fact.id, type: fact.type, content: fact.content, createdAt: fact.createdAt });
  if (query.text !== undefined && query.text.trim() !== "") {
    const facts = await searchFacts({ ...scope, conversationId: null }, { text: query.text, types: [type], limit, scope: "same-project" });
    return facts.map(shape);
  }
  const db = await getDb();
  const rows = await db.memoryFact.findMany({ where: { tenantId: scope.tenantId, projectId: scope.projectId, type }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit, select: FACT_SELECT });
  return rows.map((row) => shape({ ...row, createdAt: row.createdAt.toISOString() }));
}

/**
 * The OR of the lexemes of `text` as a tsquery, or NULL when it has none (NULL matches nothing). Each lexeme is
 * quoted for tsquery input (quotes and backslashes doubled), so no character of the text acts as an operator.
 */
function orQuery(text: string): Prisma.Sql {
  return Prisma.sql`(SELECT string_agg(chr(39) || replace(replace(lexeme, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39), ' | ')
    FROM unnest(tsvector_to_array(to_tsvector('english', ${text.slice(0, MAX_QUERY_TEXT_LENGTH)}::text))) AS lexeme)::tsquery`;
}

/**
 * Facts matching `conditions` and sharing a keyword with `text`, by rank, then newest, then id (all descending),
 * after `after` when given. The match is on `to_tsvector('english', content)`, the expression the GIN index holds.
 */
async function rankedFacts(client: DbTx, conditions: Prisma.Sql[], text: string, limit: number, after?: RankedCursor): Promise<RankedRow[]> {
  const query = orQuery(text);
  const afterCondition = after
    ? Prisma.sql`WHERE (rank, "createdAt", id) < (${after.rank}::float8, ${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`
    : Prisma.empty;
  return client.$queryRaw<RankedRow[]>`
    SELECT id::text AS id, type, content, "projectId"::text AS "projectId", "conversationId"::text AS "conversationId", source,
           "runId"::text AS "runId", "createdBy"::text AS "createdBy", "createdAt", rank
    FROM (
      SELECT *, ts_rank(to_tsvector('english', content), ${query})::float8 AS rank
      FROM "MemoryFact"
      WHERE ${Prisma.join(conditions, " AND ")} AND to_tsvector('english', content) @@ ${query}
    ) AS ranked
    ${afterCondition}
    ORDER BY rank DESC, "createdAt" DESC, ranked.id DESC
    LIMIT ${limit}`;
}

type SimilarRow = RankedRow & { score: number };

/**
 * Facts matching `conditions` with a vector from the query's model, by cosine similarity to the query (exact: every
 * such vector is compared), then newest, then id.
 */
async function similarFacts(client: DbTx, conditions: Prisma.Sql[], embedding: QueryEmbedding, limit: number): Promise<SimilarRow[]> {
  return client.$queryRaw<SimilarRow[]>`
    SELECT id, type, content, "projectId", "conversationId", source, "runId", "createdBy", "createdAt", 0::float8 AS rank, score
    FROM (
      SELECT f.id::text AS id, f.type, f.content, f."projectId"::text AS "projectId", f."conversationId"::text AS "conversationId", f.source,
             f."runId"::text AS "runId", f."createdBy"::text AS "createdBy", f."createdAt", ${cosineSql(Prisma.sql`e.vector`, embedding.vector)} AS score
      FROM (SELECT * FROM "MemoryFact" WHERE ${Prisma.join(conditions, " AND ")}) AS f
      JOIN "FactEmbedding" e ON e."factId" = f.id AND e."providerId" = ${embedding.providerId} AND e.model = ${embedding.model} AND e.dimensions = ${embedding.vector.length}
    ) AS scored
    ORDER BY score DESC, "createdAt" DESC, id DESC
    LIMIT ${limit}`;
}

/** The facts matching `conditions` with no vector from the query's model (all of them, without a query vector). */
async function unembeddedCount(client: DbTx, conditions: Prisma.Sql[], embedding: QueryEmbedding | null): Promise<number> {
  const missing = embedding
    ? Prisma.sql`AND NOT EXISTS (SELECT 1 FROM "FactEmbedding" e WHERE e."factId" = f.id AND e."providerId" = ${embedding.providerId} AND e.model = ${embedding.model} AND e.dimensions = ${embedding.vector.length})`
    : Prisma.empty;
  const [row] = await client.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM (SELECT id FROM "MemoryFact" WHERE ${Prisma.join(conditions, " AND ")}) AS f WHERE true ${missing}`;
  return row?.count ?? 0;
}
