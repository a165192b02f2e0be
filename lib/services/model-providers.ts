/**
 * Model providers per tenant: the tenant's own providers (POST /v1/providers, stored in TenantModelProvider), the
 * environment's and the built-in ones, in one routing order, and the `ModelProvider` a run calls.
 *
 * A tenant provider's API key stays in the tenant's secrets: the row holds the secret's name, and the value is
 * resolved on every model call, kept in memory for that call only, never stored, logged or returned.
 * Embedding providers (capability kind `embedding`) are listed with the model providers and built for a call by
 * `instantiateEmbeddingProvider`, under the same rules.
 */
import { getDb, type DbTx } from "@/lib/db";
import { AppError, isAppError, notFound } from "@/lib/errors";
import { decodeCursor, toPage, type Page } from "@/lib/pagination";
import type { EmbeddingProvider, EmbeddingRequest, EmbeddingResponse } from "@/lib/models/embedding";
import { ModelProviderError, type ModelProvider, type ModelRequest, type ModelResponse } from "@/lib/models/provider";
import { allowsPrivateProviderUrls, checkProviderDestination, validateTenantProviderConfig, type TenantProviderKind } from "@/lib/models/provider-config";
import { createEmbeddingProvider, createModelProvider } from "@/lib/models/providers";
import { isRecord } from "@/lib/models/providers/shared";
import { capabilityKindOf, describeProvider, listProviders, RESERVED_PROVIDER_IDS, type ModelInfo, type ProviderDescriptor, type ProviderView } from "@/lib/models/registry";
import { type Actor, actorSeesProvider, authorizeTenantWide, providerServesProject } from "@/lib/services/actor";
import { audit } from "@/lib/services/audit";
import { resolveSecretValue } from "@/lib/services/secrets";
import type { HostResolver } from "@/lib/tools/network-policy";
import { AgentPool, pinnedFetch } from "@/lib/tools/pinned-fetch";
import { bumpGeneration } from "@/lib/services/tenant-generation";
import { cached } from "@/lib/services/tenant-generation";

/** A tenant's provider as the API shows it: its configuration (never the key) and who configured it when. */
export type TenantProviderView = ProviderView & { source: "tenant"; baseUrl: string; apiKeySecret: string; projectIds: string[] | null; createdBy: string; createdAt: string; updatedAt: string };

type TenantProviderRow = { providerId: string; kind: string; baseUrl: string; apiKeySecret: string; models: unknown; projectIds: string[]; createdBy: string; createdAt: Date; updatedAt: Date };

const rowSelect = { providerId: true, kind: true, baseUrl: true, apiKeySecret: true, models: true, projectIds: true, createdBy: true, createdAt: true, updatedAt: true } as const;

/** The projects a stored provider is limited to; null: every project of the tenant. */
const limitOf = (row: { projectIds: string[] }): string[] | null => (row.projectIds.length > 0 ? row.projectIds : null);

const finite = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The stored models (written by registerModelProvider) as ModelInfo, features always listed. */
function storedModels(json: unknown): ModelInfo[] {
  return (Array.isArray(json) ? json : []).filter(isRecord).flatMap((model) => {
    if (typeof model.name !== "string") return [];
    const contextTokens = finite(model.contextTokens);
    const inputUsdPerMTok = finite(model.inputUsdPerMTok);
    const outputUsdPerMTok = finite(model.outputUsdPerMTok);
    const dimensions = finite(model.dimensions);
    return [{
      name: model.name,
      ...(contextTokens !== undefined && { contextTokens }),
      features: Array.isArray(model.features) ? model.features.filter((feature): feature is string => typeof feature === "string") : [],
      ...(inputUsdPerMTok !== undefined && { inputUsdPerMTok }),
      ...(outputUsdPerMTok !== undefined && { outputUsdPerMTok }),
      ...(dimensions !== undefined && { dimensions }),
    }];
  });
}

function tenantDescriptor(row: TenantProviderRow): ProviderDescriptor {
  return {
    id: row.providerId,
    kind: row.kind as TenantProviderKind,
    capabilityKind: capabilityKindOf(row.kind as TenantProviderKind),
    models: storedModels(row.models),
    source: "tenant",
    dev: false,
    routing: "normal",
    baseUrl: row.baseUrl,
    apiKeySecret: row.apiKeySecret,
    projectIds: limitOf(row),
  };
}

function tenantProviderView(row: TenantProviderRow): TenantProviderView {
  const { id, kind, capabilityKind, models } = tenantDescriptor(row);
  return {
    id,
    kind,
    capabilityKind,
    source: "tenant",
    baseUrl: row.baseUrl,
    apiKeySecret: row.apiKeySecret,
    projectIds: limitOf(row),
    models,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The providers the runs of one project of a tenant are routed to, in routing order: the tenant's own (oldest
 * first) that are not limited to other projects, then the environment's, then `scripted` (KINDGI_DEV_PROVIDERS=1),
 * then `dev-echo`. With `projectId` null, every tenant provider (for listings that show their limits). Descriptors
 * carry no key: a tenant provider names its secret, an environment provider its variable. Pass `db` inside a
 * transaction.
 */
export async function providersForProject(tenantId: string, projectId: string | null, env: NodeJS.ProcessEnv = process.env, db?: DbTx): Promise<readonly ProviderDescriptor[]> {
  // The tenant's rows, outside a transaction, under its generation (registering or deleting a provider bumps it).
  const query = (client: DbTx) => client.tenantModelProvider.findMany({ where: { tenantId }, orderBy: [{ createdAt: "asc" }, { providerId: "asc" }], select: rowSelect });
  const environment = listProviders(env);
  const list = (rows: readonly TenantProviderRow[]) => Object.freeze([...(projectId === null ? rows : rows.filter((row) => providerServesProject(limitOf(row), projectId))).map(tenantDescriptor), ...environment]);
  if (db) return list(await query(db));
  const rows = await cached(tenantId, "providers", async () => query(await getDb()));
  // The same list (the same array) while the cached rows and the environment's providers stay the same.
  let byProject = projectLists.get(rows);
  if (!byProject) projectLists.set(rows, (byProject = new Map()));
  const kept = byProject.get(projectId);
  if (kept?.environment === environment) return kept.providers;
  const providers = list(rows);
  byProject.set(projectId, { environment, providers });
  return providers;
}

/** What {@link providersForProject} answered, by the tenant's cached rows and then the project. */
const projectLists = new WeakMap<readonly TenantProviderRow[], Map<string | null, { environment: readonly ProviderDescriptor[]; providers: readonly ProviderDescriptor[] }>>();

/**
 * The model provider a run calls for `descriptor` (one of `providersForProject(tenantId, projectId)`).
 *
 * - dev kinds (dev-echo, scripted): built in, no key;
 * - an environment provider: its key is read from `process.env[descriptor.apiKeyEnv]` now; a missing key rejects
 *   with `provider-auth-failed`;
 * - a tenant provider: on every `complete` call its host is resolved and each address checked (lookup: `options.lookup`,
 *   default the system resolver; loopback and private addresses only with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1,
 *   read at call time), and the call connects to the first checked address only (DNS-pinned); then the key is
 *   resolved from the tenant's secret `descriptor.apiKeySecret`, used for that call and dropped. Such a call rejects
 *   with a `ModelProviderError` before any HTTP attempt (attempts 0): `provider-request-failed` when the destination
 *   is refused, `provider-unavailable` when its host does not resolve, `provider-auth-failed` when the secret is gone
 *   or secrets cannot be read.
 * Every other failure of `complete` is the provider's own (`ModelProviderError`, see lib/models/provider.ts).
 */
export async function instantiateProvider(tenantId: string, descriptor: ProviderDescriptor, options: { lookup?: HostResolver } = {}): Promise<ModelProvider> {
  switch (descriptor.kind) {
    case "dev-echo":
    case "scripted":
      return createModelProvider({ kind: descriptor.kind });
    case "openai-compatible":
    case "anthropic":
      if (descriptor.source === "tenant") return tenantProvider(tenantId, descriptor, descriptor.kind, options);
      return createModelProvider({ kind: descriptor.kind, ...httpConfig(descriptor), apiKey: environmentKey(descriptor) });
    case "dev-embed":
    case "openai-compatible-embeddings":
      throw servesOtherKind(descriptor, "a model provider");
  }
}

/**
 * The embedding provider a call embeds through for `descriptor` (one of `providersForProject(tenantId, projectId)`
 * with capability kind `embedding`, e.g. the one `routeEmbedding` or `defaultEmbeddingRoute` chose), under the
 * rules of {@link instantiateProvider}: `dev-embed` is built in, no key; an environment provider's key is read from
 * `process.env[descriptor.apiKeyEnv]` now (missing: `provider-auth-failed`); a tenant provider's destination is
 * checked (DNS-pinned; loopback and private addresses only with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1) and its key
 * resolved from the tenant's secret on every `embed` call, before any HTTP attempt (attempts 0 when that fails).
 * A model provider's descriptor is refused (`provider-request-failed`).
 */
export async function instantiateEmbeddingProvider(tenantId: string, descriptor: ProviderDescriptor, options: { lookup?: HostResolver } = {}): Promise<EmbeddingProvider> {
  switch (descriptor.kind) {
    case "dev-embed":
      return createEmbeddingProvider({ kind: "dev-embed" });
    case "openai-compatible-embeddings":
      if (descriptor.source === "tenant") return tenantEmbeddingProvider(tenantId, descriptor, options);
      return createEmbeddingProvider({ kind: descriptor.kind, ...httpConfig(descriptor), apiKey: environmentKey(descriptor) });
    case "dev-echo":
    case "scripted":
    case "openai-compatible":
    case "anthropic":
      throw servesOtherKind(descriptor, "an embedding provider");
  }
}

function servesOtherKind(descriptor: ProviderDescriptor, wanted: string): ModelProviderError {
  return new ModelProviderError("provider-request-failed", `${descriptor.id} (kind ${descriptor.kind}) serves capability kind "${descriptor.capabilityKind}"; it is not ${wanted}`, { attempts: 0 });
}

function httpConfig(descriptor: ProviderDescriptor) {
  return { id: descriptor.id, models: descriptor.models, ...(descriptor.baseUrl !== undefined && { baseUrl: descriptor.baseUrl }) };
}

function environmentKey(descriptor: ProviderDescriptor): string {
  const key = descriptor.apiKeyEnv ? process.env[descriptor.apiKeyEnv]?.trim() : undefined;
  if (!key) throw new ModelProviderError("provider-auth-failed", `${descriptor.id}: ${descriptor.apiKeyEnv ?? "its API key variable"} is not set`, { attempts: 0 });
  return key;
}

/** Kept-alive connections to tenant providers, one agent per checked address. */
const providerAgents = new AgentPool();

/** A tenant provider: destination check and key resolution on every call, then the kind's provider for that call only. */
function tenantProvider(tenantId: string, descriptor: ProviderDescriptor, kind: "openai-compatible" | "anthropic", options: { lookup?: HostResolver }): ModelProvider {
  const connect = tenantConnection(tenantId, descriptor, options);
  return {
    id: descriptor.id,
    kind,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const { apiKey, fetch } = await connect();
      return createModelProvider({ kind, ...httpConfig(descriptor), apiKey, http: { fetch } }).complete(request);
    },
  };
}

/** A tenant embedding provider: destination check and key resolution on every call, as {@link tenantProvider}. */
function tenantEmbeddingProvider(tenantId: string, descriptor: ProviderDescriptor, options: { lookup?: HostResolver }): EmbeddingProvider {
  const connect = tenantConnection(tenantId, descriptor, options);
  return {
    id: descriptor.id,
    kind: "openai-compatible-embeddings",
    async embed(request: EmbeddingRequest): Promise<EmbeddingResponse> {
      const { apiKey, fetch } = await connect();
      return createEmbeddingProvider({ kind: "openai-compatible-embeddings", ...httpConfig(descriptor), apiKey, http: { fetch } }).embed(request);
    },
  };
}

/**
 * What one call of a tenant provider connects with: its URL's host resolved and every address checked now, a
 * `fetch` pinned to the checked address, and the key resolved from the tenant's secret now.
 */
function tenantConnection(tenantId: string, descriptor: ProviderDescriptor, options: { lookup?: HostResolver }): () => Promise<{ apiKey: string; fetch: typeof fetch }> {
  const { baseUrl, apiKeySecret } = descriptor;
  if (baseUrl === undefined || apiKeySecret === undefined) throw new Error(`tenant provider ${descriptor.id} has no baseUrl or apiKeySecret`);
  const url = new URL(baseUrl);
  return async () => {
    const destination = await checkProviderDestination(descriptor.id, url, { allowPrivateUrls: allowsPrivateProviderUrls(), lookup: options.lookup });
    const apiKey = await tenantKey(tenantId, descriptor.id, apiKeySecret);
    // Every attempt of this call (retries too) connects to the address just checked: no second DNS answer.
    const pinned = pinnedFetch(async (target) => {
      if (target.origin !== url.origin) throw new TypeError(`fetch failed: ${target.origin} is not this provider's origin`);
      return destination;
    }, providerAgents);
    return { apiKey, fetch: pinned.fetch };
  };
}

async function tenantKey(tenantId: string, providerId: string, secretName: string): Promise<string> {
  try {
    return await resolveSecretValue(tenantId, secretName);
  } catch (error) {
    if (isAppError(error) && (error.code === "secret-not-found" || error.code === "secrets-unavailable")) {
      throw new ModelProviderError("provider-auth-failed", `${providerId}: its API key secret ${JSON.stringify(secretName)} cannot be used: ${error.message}`, { attempts: 0 });
    }
    throw error;
  }
}

/**
 * Configures a model provider for the actor's tenant (POST /v1/providers, tenant admins). The body is checked in
 * full (400 validation-failed with every issue); the id must not be a built-in or environment id nor one of the
 * tenant's (409 provider-already-registered); the key's secret must exist (404 secret-not-found).
 */
export async function registerModelProvider(actor: Actor, body: Record<string, unknown>): Promise<TenantProviderView> {
  authorizeTenantWide(actor, "providers", "write");
  const result = validateTenantProviderConfig(body, { allowPrivateUrls: allowsPrivateProviderUrls() });
  if (!result.ok) throw new AppError("validation-failed", `the provider is not valid: ${result.issues.length} problem(s), first: ${result.issues[0].path || "/"} ${result.issues[0].message}`, { issues: result.issues });
  const config = result.config;
  const taken = () => new AppError("provider-already-registered", `a model provider with id ${JSON.stringify(config.id)} exists already`, { providerId: config.id });
  if (RESERVED_PROVIDER_IDS.includes(config.id)) throw taken();
  const db = await getDb();
  return db.$transaction(async (tx) => {
    if (await tx.tenantModelProvider.findUnique({ where: { tenantId_providerId: { tenantId: actor.tenantId, providerId: config.id } }, select: { id: true } })) throw taken();
    const secret = await tx.secret.findFirst({ where: { tenantId: actor.tenantId, name: config.apiKeySecret, deletedAt: null }, select: { id: true } });
    if (!secret) throw new AppError("secret-not-found", `no secret named ${JSON.stringify(config.apiKeySecret)} in this tenant; store the key with POST /v1/secrets first`, { name: config.apiKeySecret });
    if (config.projectIds) {
      const found = new Set((await tx.project.findMany({ where: { tenantId: actor.tenantId, id: { in: config.projectIds } }, select: { id: true } })).map((project) => project.id));
      const issues = config.projectIds.flatMap((id, index) => (found.has(id) ? [] : [{ path: `/projectIds/${index}`, message: "is not a project of the caller's tenant" }]));
      if (issues.length > 0) throw new AppError("bad-input", `projectIds names ${issues.length} project(s) that are not the tenant's`, { issues });
    }
    const { count } = await tx.tenantModelProvider.createMany({
      data: [{ tenantId: actor.tenantId, providerId: config.id, kind: config.kind, baseUrl: config.baseUrl, apiKeySecret: config.apiKeySecret, models: config.models, projectIds: config.projectIds ?? [], createdBy: actor.userId }],
      skipDuplicates: true,
    });
    if (count === 0) throw taken();
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "provider.registered", subjectType: "provider", subjectId: config.id, data: { kind: config.kind, baseUrl: config.baseUrl, apiKeySecret: config.apiKeySecret, projectIds: config.projectIds } });
    return tenantProviderView(await tx.tenantModelProvider.findUniqueOrThrow({ where: { tenantId_providerId: { tenantId: actor.tenantId, providerId: config.id } }, select: rowSelect }));
  });
}

/** One of the tenant's own providers (GET /v1/providers/{providerId}); built-in and environment ids are 404. */
export async function getModelProvider(actor: Actor, providerId: string): Promise<TenantProviderView> {
  authorizeTenantWide(actor, "providers", "read");
  const db = await getDb();
  const row = await db.tenantModelProvider.findUnique({ where: { tenantId_providerId: { tenantId: actor.tenantId, providerId } }, select: rowSelect });
  if (!row || !actorSeesProvider(actor, limitOf(row))) throw notFound("provider", providerId);
  return tenantProviderView(row);
}

/**
 * Removes one of the tenant's providers (DELETE /v1/providers/{providerId}, tenant admins). Agents that prefer it
 * are routed elsewhere from then on; its secret stays. Built-in and environment ids are 404.
 */
export async function deleteModelProvider(actor: Actor, providerId: string): Promise<{ id: string; deleted: true }> {
  authorizeTenantWide(actor, "providers", "write");
  const db = await getDb();
  return db.$transaction(async (tx) => {
    const { count } = await tx.tenantModelProvider.deleteMany({ where: { tenantId: actor.tenantId, providerId } });
    if (count === 0) throw notFound("provider", providerId);
    bumpGeneration(tx, actor.tenantId);
    await audit(tx, actor, { action: "provider.deleted", subjectType: "provider", subjectId: providerId });
    return { id: providerId, deleted: true as const };
  });
}

/**
 * The providers the actor's tenant is routed to (GET /v1/providers), in routing order; never a key. The tenant's
 * own providers show their URL, secret name and project limit; others show none of them. A key narrowed to a
 * project, or a `projectId` filter, shows the providers that project's runs may be routed to.
 */
export async function listModelProviders(actor: Actor, page: { limit: number; cursor?: string; projectId?: string }): Promise<Page<ProviderView>> {
  authorizeTenantWide(actor, "providers", "read");
  const after = decodeCursor(page.cursor)?.[0];
  if (actor.projectId && page.projectId && page.projectId.toLowerCase() !== actor.projectId) return { data: [], hasMore: false };
  const providers = await providersForProject(actor.tenantId, actor.projectId ?? page.projectId?.toLowerCase() ?? null);
  // The cursor is the id of the last provider shown; one no longer configured ends the list.
  const start = after === undefined ? 0 : providers.findIndex((provider) => provider.id === after) + 1;
  return toPage(start === 0 && after !== undefined ? [] : providers.slice(start, start + page.limit + 1), page.limit, (provider) => [provider.id], describeProvider);
}
