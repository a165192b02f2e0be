/**
 * Facts embedded in the background, and retrieval queries embedded when a turn asks (DESIGN.md §5, memory).
 *
 * A fact is stored at once (a provider outage never loses or blocks the write); the embedder of every server process
 * then embeds the facts that have no vector from their project's embedding model — the route of a bare
 * `{kind: "embedding"}` capability in that project: the first embedding provider configured, else `dev-embed`. The
 * facts without a vector are the durable queue: nothing is lost when a process stops. A batch is claimed first
 * (`embedAfter` set a little ahead, `FOR UPDATE SKIP LOCKED` on PostgreSQL) so two replicas do not embed the same
 * facts; a failed batch is tried again later (`embedAttempts`, `embedError`, backoff in `embedAfter`). A change of the
 * project's embedding model (a provider configured or removed) leaves its facts without a vector from the new model:
 * the next pass re-embeds them (a change of the tenant's embedding providers wakes the embedder). A new fact wakes the
 * embedders of every replica, through the event bus, for its project.
 */
import { getDb } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { EMBEDDING, normalized, type EmbeddingProvider } from "@/lib/models/embedding";
import type { ProviderDescriptor } from "@/lib/models/registry";
import { defaultEmbeddingRoute, isRouted, routeEmbedding, type RoutableDefinition, type RouteDecision } from "@/lib/models/router";
import { startBackgroundLoop, type BackgroundLoop } from "@/lib/services/background-loop";
import { eventBus } from "@/lib/services/event-bus";
import { instantiateEmbeddingProvider, providersForProject } from "@/lib/services/model-providers";
import { watchTenantChanges } from "@/lib/services/tenant-generation";
import { log } from "@/lib/log";

/** The bus topic a new fact is announced on: it wakes every replica's embedder. */
const EMBED_TOPIC = "facts:embed";
/** Facts embedded in one provider call. */
const BATCH = 64;
/** How long a claimed batch is kept from other embedders while one is at work on it. */
const CLAIM_MS = 120_000;
/** The wait before a failed batch is tried again: doubling from 2 s, at most 5 min. */
const backoffMs = (attempts: number) => Math.min(2_000 * 2 ** Math.max(0, attempts - 1), 300_000);
/** How often the embedder looks for work when nothing woke it (a lost announcement, a changed model). */
const DEFAULT_PASS_MS = 15_000;

/** The embedding model a route names, and the provider that serves it. */
export type EmbeddingRoute = { decision: RouteDecision; descriptor: ProviderDescriptor };

/** Texts embedded: L2-normalized vectors, with the provider, model and dimensions they were made with. */
export type Embedded = { vectors: number[][]; providerId: string; model: string; dimensions: number; inputTokens: number; costUsd: number; warnings: string[] };

function routeOf(providers: readonly ProviderDescriptor[], decision: RouteDecision): EmbeddingRoute {
  const descriptor = providers.find((provider) => provider.id === decision.providerId);
  if (!descriptor) throw new Error(`the embedding route names provider ${decision.providerId}, which is not in the project's list`);
  return { decision, descriptor };
}

/** The embedding model that embeds a project's facts: the route of a bare `{kind: "embedding"}` capability. */
export async function projectEmbeddingRoute(tenantId: string, projectId: string): Promise<EmbeddingRoute> {
  const providers = await providersForProject(tenantId, projectId);
  const decision = defaultEmbeddingRoute(providers);
  if (!isRouted(decision)) throw new Error(decision.message);
  return routeOf(providers, decision);
}

/**
 * The embedding model an agent's retrieval uses: its first `embedding` capability entry's route, else the project's.
 * Null (with the reason) when its entry names something no provider here serves.
 */
export async function agentEmbeddingRoute(tenantId: string, projectId: string, definition: RoutableDefinition): Promise<EmbeddingRoute | { error: string }> {
  const providers = await providersForProject(tenantId, projectId);
  const decision = routeEmbedding(definition, providers);
  return isRouted(decision) ? routeOf(providers, decision) : { error: decision.message };
}

/** Embeds `texts` with the route's model. Throws the provider's error (a ModelProviderError) when it fails. */
export async function embedTexts(tenantId: string, route: EmbeddingRoute, texts: string[], signal?: AbortSignal): Promise<Embedded> {
  const provider: EmbeddingProvider = await instantiateEmbeddingProvider(tenantId, route.descriptor);
  const answer = await provider.embed({ model: route.decision.model, inputs: texts, signal });
  return {
    vectors: answer.vectors.map(normalized),
    providerId: route.decision.providerId,
    model: route.decision.model,
    dimensions: answer.dimensions,
    inputTokens: answer.usage.inputTokens,
    costUsd: answer.costUsd,
    warnings: answer.warnings,
  };
}

/** A project whose facts an embedder looks at. */
type ProjectRef = { tenantId: string; projectId: string };

/** Tells every replica's embedder that facts of a project wait (after the write that stored them has committed). */
export function announceNewFacts(where: ProjectRef): void {
  eventBus().publish(EMBED_TOPIC, { tenantId: where.tenantId, projectId: where.projectId });
}

type Claimed = { id: string; content: string; embedAttempts: number };

/** Claims up to BATCH facts of the project that have no vector from the route's model and are due. */
async function claimBatch(tenantId: string, projectId: string, route: EmbeddingRoute): Promise<Claimed[]> {
  const db = await getDb();
  const until = new Date(Date.now() + CLAIM_MS).toISOString();
  return db.$queryRaw<Claimed[]>`
    UPDATE "MemoryFact" SET "embedAfter" = ${until}::timestamptz
    WHERE id IN (
      SELECT f.id FROM "MemoryFact" f
      WHERE f."tenantId" = ${tenantId}::uuid AND f."projectId" = ${projectId}::uuid
        AND (f."embedAfter" IS NULL OR f."embedAfter" <= now())
        AND NOT EXISTS (SELECT 1 FROM "FactEmbedding" e WHERE e."factId" = f.id AND e."providerId" = ${route.decision.providerId} AND e.model = ${route.decision.model})
      ORDER BY f."createdAt", f.id
      LIMIT ${BATCH}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id::text AS id, content, "embedAttempts"`;
}

/** A vector as a PostgreSQL array literal (9 significant digits: a float4 reads back exactly). */
export const vectorLiteral = (vector: readonly number[]) => `{${vector.map((value) => (Number.isFinite(value) && value !== 0 ? value.toPrecision(9) : "0")).join(",")}}`;

/**
 * Stores a batch's vectors (a vector another embedder stored first is kept) and clears the facts' failure state. The
 * vectors go as one text[] parameter of array literals: an insert of one row per fact with hundreds of numbers each
 * took about eight times as long.
 */
async function storeBatch(tenantId: string, projectId: string, facts: Claimed[], embedded: Embedded): Promise<void> {
  const db = await getDb();
  const ids = facts.map((fact) => fact.id);
  await db.$transaction(async (tx) => {
    await tx.$executeRaw`
      INSERT INTO "FactEmbedding" ("factId", "tenantId", "projectId", "providerId", model, dimensions, vector)
      SELECT id, ${tenantId}::uuid, ${projectId}::uuid, ${embedded.providerId}, ${embedded.model}, ${embedded.dimensions}, vector::real[]
      FROM unnest(${ids}::uuid[], ${embedded.vectors.map(vectorLiteral)}::text[]) AS row(id, vector)
      ON CONFLICT DO NOTHING`;
    await tx.memoryFact.updateMany({ where: { id: { in: ids } }, data: { embedAttempts: 0, embedError: null, embedAfter: null } });
  });
}

/** Records a failed batch: each fact is tried again after a backoff that grows with its failures. */
async function failBatch(facts: Claimed[], message: string): Promise<void> {
  const db = await getDb();
  for (const attempts of new Set(facts.map((fact) => fact.embedAttempts + 1))) {
    const ids = facts.filter((fact) => fact.embedAttempts + 1 === attempts).map((fact) => fact.id);
    await db.memoryFact.updateMany({ where: { id: { in: ids } }, data: { embedAttempts: attempts, embedError: message.slice(0, 500), embedAfter: new Date(Date.now() + backoffMs(attempts)) } });
  }
}

/**
 * One pass of the embedder: for every project with facts (or only the projects `only` names), the facts without a
 * vector from its embedding model, in batches, until none is due. Answers what it did and when a failed batch is due
 * again (the loop sleeps until then).
 */
export async function embedPendingFacts(only?: readonly ProjectRef[]): Promise<{ embedded: number; failed: number; retryInMs: number | null }> {
  const db = await getDb();
  const projects = only ?? (await db.$queryRaw<ProjectRef[]>`SELECT DISTINCT "tenantId"::text AS "tenantId", "projectId"::text AS "projectId" FROM "MemoryFact"`);
  let embedded = 0;
  let failed = 0;
  for (const { tenantId, projectId } of projects) {
    const route = await projectEmbeddingRoute(tenantId, projectId).catch(() => null);
    if (!route) continue;
    for (;;) {
      const batch = await claimBatch(tenantId, projectId, route);
      if (batch.length === 0) break;
      try {
        const answer = await embedTexts(tenantId, route, batch.map((fact) => fact.content));
        if (answer.vectors.length !== batch.length) throw new Error(`the provider answered ${answer.vectors.length} vectors for ${batch.length} facts`);
        await storeBatch(tenantId, projectId, batch, answer);
        embedded += batch.length;
      } catch (error) {
        failed += batch.length;
        const message = error instanceof Error ? error.message : String(error);
        await failBatch(batch, message);
        log.warn("embedding facts failed (tried again later)", { tenantId, projectId, facts: batch.length, providerId: route.decision.providerId, model: route.decision.model, err: error instanceof Error ? error : message });
        break;
      }
    }
  }
  const next = await db.memoryFact.findFirst({ where: { embedAfter: { gt: new Date() }, embedAttempts: { gt: 0 } }, orderBy: { embedAfter: "asc" }, select: { embedAfter: true } });
  return { embedded, failed, retryInMs: next?.embedAfter ? Math.max(50, next.embedAfter.getTime() - Date.now()) : null };
}

const holder = globalThis as typeof globalThis & { kindgiFactEmbedder?: BackgroundLoop };

/** What decides a tenant's embedding models: its embedding providers (ids, models, project limits). */
async function embeddingSignature(tenantId: string): Promise<string> {
  const providers = await providersForProject(tenantId, null);
  return JSON.stringify(providers.filter((provider) => provider.capabilityKind === EMBEDDING).map((provider) => [provider.id, provider.models.map((model) => model.name), provider.projectIds ?? null]));
}

/**
 * Starts this process's embedder (KINDGI_EMBED_PASS_MS: how often it looks at every project when nothing woke it,
 * default 15000). A new fact's announcement wakes it for that fact's project only; a tenant change that changes the
 * tenant's embedding providers, a lost announcement, a failed batch coming due or the interval make it look at every
 * project.
 */
export function startFactEmbedder(env: NodeJS.ProcessEnv = process.env): void {
  if (holder.kindgiFactEmbedder) return;
  const parsed = Number(env.KINDGI_EMBED_PASS_MS);
  const passMs = Number.isInteger(parsed) && parsed > 0 ? parsed : DEFAULT_PASS_MS;
  const dirty = new Map<string, ProjectRef>();
  /** Tenants that changed since the last pass: their embedding providers are compared in the pass, not while the change's transaction may still be open. */
  const changedTenants = new Set<string>();
  const signatures = new Map<string, string>();
  let everyProject = true;
  let lastFullAt = 0;
  const loop = startBackgroundLoop("fact embedder", passMs, async () => {
    for (const tenantId of [...changedTenants]) {
      changedTenants.delete(tenantId);
      const signature = await embeddingSignature(tenantId);
      if (signatures.get(tenantId) === signature) continue;
      signatures.set(tenantId, signature);
      everyProject = true;
    }
    const full = everyProject || Date.now() - lastFullAt >= passMs;
    const only = full ? undefined : [...dirty.values()];
    everyProject = false;
    dirty.clear();
    if (full) lastFullAt = Date.now();
    const { retryInMs } = await embedPendingFacts(only);
    if (retryInMs !== null) everyProject = true;
    return retryInMs === null ? passMs : Math.min(passMs, retryInMs);
  });
  holder.kindgiFactEmbedder = loop;
  // A little after the announcement (a fact the kernel wrote is announced inside its step's transaction), at most one
  // wake-up per moment.
  let soon: NodeJS.Timeout | null = null;
  const wakeSoon = () => {
    soon ??= setTimeout(() => {
      soon = null;
      loop.wake();
    }, 100);
    soon.unref();
  };
  eventBus().subscribe(EMBED_TOPIC, (message) => {
    const where = message as Partial<ProjectRef> | null;
    if (typeof where?.tenantId === "string" && typeof where.projectId === "string") dirty.set(`${where.tenantId}:${where.projectId}`, { tenantId: where.tenantId, projectId: where.projectId });
    else everyProject = true;
    wakeSoon();
  });
  watchTenantChanges((tenantId) => {
    if (tenantId === null) everyProject = true;
    else changedTenants.add(tenantId);
    wakeSoon();
  });
}

/** What GET /v1/memory/facts/{id} says of a fact's embedding with its project's current model. */
export type FactEmbeddingStatus =
  | { status: "embedded"; providerId: string; model: string; dimensions: number; embeddedAt: string }
  | { status: "pending"; providerId: string; model: string; attempts: number; lastError: string | null; nextAttemptAt: string | null };

export async function factEmbeddingStatus(fact: { id: string; tenantId: string; projectId: string; embedAttempts: number; embedError: string | null; embedAfter: Date | null }): Promise<FactEmbeddingStatus> {
  const route = await projectEmbeddingRoute(fact.tenantId, fact.projectId);
  const { providerId, model } = route.decision;
  const db = await getDb();
  const row = await db.factEmbedding.findUnique({ where: { factId_providerId_model: { factId: fact.id, providerId, model } }, select: { dimensions: true, createdAt: true } });
  if (row) return { status: "embedded", providerId, model, dimensions: row.dimensions, embeddedAt: row.createdAt.toISOString() };
  return { status: "pending", providerId, model, attempts: fact.embedAttempts, lastError: fact.embedError, nextAttemptAt: fact.embedAttempts > 0 && fact.embedAfter ? fact.embedAfter.toISOString() : null };
}

/** The SQL of a cosine similarity between a stored vector `column` and `query` (both normalized: their dot product). */
export function cosineSql(column: Prisma.Sql, query: number[]): Prisma.Sql {
  return Prisma.sql`(SELECT sum(a * b) FROM unnest(${column}, ${query}::real[]) AS pair(a, b))::float8`;
}
