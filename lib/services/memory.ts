/**
 * The memory store: facts an agent is grounded with before each turn (retrieval intents) and that the `remember` and
 * `recall` tools write and read during one. Matching is keyword search on PostgreSQL full-text search
 * (`to_tsvector('english', content)`, GIN-indexed): the query's lexemes OR-ed, ranked by `ts_rank`, then newest.
 */
import { getDb, type DbTx } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { AppError, notFound, type Issue } from "@/lib/errors";
import { isUuid } from "@/lib/ids";
import { MAX_RETRIEVAL_LIMIT } from "@/lib/agents/agent-schema";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import { type Actor, projectFilter, requireWrite, resolveWritableProject } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";

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

/** A fact a keyword search found; `rank` is its `ts_rank` against the query (higher matches better). */
export type RetrievedFact = { id: string; type: string; content: string; conversationId: string | null; createdAt: string; rank: number };

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

const retrievedFact = (row: RankedRow): RetrievedFact => ({ id: row.id, type: row.type, content: row.content, conversationId: row.conversationId, createdAt: row.createdAt.toISOString(), rank: row.rank });

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
  return db.$transaction(async (tx) => {
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

/** One fact the caller can see (another tenant's, or another project's for a narrowed key, is 404). */
export async function getFact(actor: Actor, id: string): Promise<FactView> {
  const db = await getDb();
  const row = await db.memoryFact.findFirst({ where: { id, tenantId: actor.tenantId, ...projectFilter(actor) }, select: FACT_SELECT });
  if (!row) throw notFound("fact", id);
  return factView(row);
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
  return factView(row);
}

/**
 * The facts a retrieval intent grounds a turn with: facts of the intent's `types` in its scope that share a keyword
 * with `queryText` (the turn's user message), best match first. Every mode (`keyword`, `semantic`, `both`) is served
 * by keyword search; a query with no keywords (only stop words or punctuation) retrieves nothing.
 */
export async function retrieveFacts(
  scope: FactScope,
  intent: { types: string[]; scope: FactSearchScope; limit?: number },
  queryText: string,
  db?: DbTx,
): Promise<RetrievedFact[]> {
  return searchFacts(scope, { text: queryText, types: intent.types, limit: intent.limit ?? DEFAULT_FACTS_PER_SEARCH, scope: intent.scope }, db);
}

/**
 * Keyword search over the facts a run may read (the `recall` tool and retrieval): `same-conversation` reads the
 * run's conversation (nothing when the run has none), `same-project` its project, `tenant` the whole tenant.
 * `types` narrows to those fact types (an empty list matches nothing); `limit` is clamped to 1..100.
 */
export async function searchFacts(scope: FactScope, query: { text: string; types?: string[]; limit: number; scope: FactSearchScope }, db?: DbTx): Promise<RetrievedFact[]> {
  if (query.types && query.types.length === 0) return [];
  const conditions = [Prisma.sql`"tenantId" = ${scope.tenantId}::uuid`];
  if (query.scope === "same-conversation") {
    if (!scope.conversationId) return [];
    conditions.push(Prisma.sql`"conversationId" = ${scope.conversationId}::uuid`);
  } else if (query.scope === "same-project") {
    conditions.push(Prisma.sql`"projectId" = ${scope.projectId}::uuid`);
  }
  if (query.types) conditions.push(Prisma.sql`type IN (${Prisma.join(query.types)})`);
  const limit = Math.min(Math.max(Math.floor(query.limit) || DEFAULT_FACTS_PER_SEARCH, 1), MAX_FACTS_PER_SEARCH);
  const rows = await rankedFacts(db ?? (await getDb()), conditions, query.text, limit);
  return rows.map(retrievedFact);
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
