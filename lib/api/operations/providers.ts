import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";
import { TENANT_PROVIDER_KINDS, tenantProviderBodySchema } from "@/lib/models/provider-config";

const providerParams = { providerId: { kind: "providerId", description: "A provider id of the tenant, e.g. `local-ollama`." } } as const;

const modelSchema = {
  type: "object",
  required: ["name", "features"],
  properties: {
    name: { type: "string" },
    contextTokens: { type: "integer" },
    features: { type: "array", items: { type: "string" } },
    inputUsdPerMTok: { type: "number" },
    outputUsdPerMTok: { type: "number" },
    dimensions: { type: "integer", description: "An embedding model's vector length, when declared (checked against every answer)." },
  },
} as const;

const kinds = ["dev-echo", "scripted", "openai-compatible", "anthropic", "dev-embed", "openai-compatible-embeddings"] as const;

const capabilityKind = {
  type: "string",
  description: "The capability kind it serves: `llm-inference` (a model provider) or `embedding` (an embedding provider: `dev-embed`, `openai-compatible-embeddings`).",
} as const;

/** A provider in the list: a tenant's own add their URL and their key's secret name. */
const providerSummary = {
  type: "object",
  required: ["id", "kind", "capabilityKind", "models", "source"],
  properties: {
    id: { type: "string" },
    kind: { enum: kinds },
    capabilityKind,
    models: { type: "array", items: modelSchema },
    source: { enum: ["tenant", "environment", "built-in"] },
    baseUrl: { type: "string", description: "Only for the tenant's own providers." },
    apiKeySecret: { type: "string", description: "Only for the tenant's own providers: the name of the secret holding the key (never the key)." },
    projectIds: { ...nullable({ type: "array", items: uuid }), description: "Only for the tenant's own providers: the projects whose runs it may serve; null: every project." },
  },
} as const;

/** One of the tenant's own providers. */
const tenantProvider = {
  type: "object",
  required: ["id", "kind", "capabilityKind", "source", "baseUrl", "apiKeySecret", "projectIds", "models", "createdBy", "createdAt", "updatedAt"],
  properties: {
    id: { type: "string" },
    kind: { enum: TENANT_PROVIDER_KINDS },
    capabilityKind,
    source: { const: "tenant" },
    baseUrl: { type: "string" },
    apiKeySecret: { type: "string", description: "The name of the secret holding the key (never the key)." },
    projectIds: { ...nullable({ type: "array", items: uuid }), description: "The projects whose runs it may serve; null: every project of the tenant." },
    models: { type: "array", items: modelSchema },
    createdBy: uuid,
    createdAt: dateTime,
    updatedAt: dateTime,
  },
} as const;

export const listProvidersOperation = defineOperation({
  operationId: "listProviders",
  method: "GET",
  path: "/v1/providers",
  tag: "Providers",
  summary: "List the model and embedding providers the tenant's agents are routed to, in routing order",
  description:
    "The tenant's own providers (POST /v1/providers, oldest first), then `openai` and `openai-embeddings` (its embedding models: OPENAI_EMBEDDING_MODELS, default `text-embedding-3-small`; `none` for none) when OPENAI_API_KEY is set in the environment, `anthropic` when ANTHROPIC_API_KEY is, then `scripted` when KINDGI_DEV_PROVIDERS=1, then `dev-embed` and `dev-echo`, always there (the fallbacks for `embedding` and `llm-inference`: deterministic, not real models). `capabilityKind` says which capability each serves; the router matches it against an agent's capability entries. Keys are never shown; URLs only for the tenant's own providers. A tenant provider limited to projects (`projectIds`) is listed for a `projectId` filter, or a key narrowed to a project, only when it serves that project.",
  auth: "key",
  query: { ...pageQuery, projectId: { ...uuid, description: "Only the providers this project's runs may be routed to." } },
  responses: { 200: { description: "A page of providers.", schema: pageOf(providerSummary) } },
  errors: ["bad-input", "unknown-field"],
});

export const registerProviderOperation = defineOperation({
  operationId: "registerProvider",
  method: "POST",
  path: "/v1/providers",
  tag: "Providers",
  summary: "Configure a model or embedding provider for the tenant (tenant admins)",
  description:
    "An OpenAI-compatible or Anthropic endpoint (kind `openai-compatible`, `anthropic`: a model provider), or an OpenAI-compatible embeddings endpoint (kind `openai-compatible-embeddings`: `POST {baseUrl}/embeddings`, an embedding provider serving capability kind `embedding`, whose models may declare `dimensions`), whose API key is a stored secret (named by `apiKeySecret`, resolved on every call, never shown). Every problem of the body is reported in `details.issues` (400 validation-failed). The id may not be `dev-echo`, `scripted`, `openai`, `anthropic`, `dev-embed`, `openai-embeddings` or one of the tenant's (409 provider-already-registered); the secret must exist (404 secret-not-found). `baseUrl` must be an absolute http(s) URL without credentials, query or fragment; cloud metadata hosts and link-local, unspecified, multicast, reserved and carrier-grade NAT addresses are always refused, loopback and private addresses unless the server runs with KINDGI_ALLOW_PRIVATE_PROVIDER_URLS=1. A literal IP is checked here; a host name is resolved and checked on every call.",
  auth: "key",
  idempotent: true,
  body: { validation: "top-level", schema: tenantProviderBodySchema },
  responses: { 201: { description: "The provider (never the key).", schema: tenantProvider } },
  errors: ["bad-input", "unknown-field", "validation-failed", "provider-already-registered", "secret-not-found", "permission-denied"],
});

export const getProviderOperation = defineOperation({
  operationId: "getProvider",
  method: "GET",
  path: "/v1/providers/{providerId}",
  tag: "Providers",
  summary: "Get one of the tenant's own providers",
  description: "Built-in and environment providers have no page of their own (404); GET /v1/providers lists them.",
  auth: "key",
  params: providerParams,
  responses: { 200: { description: "The provider (never the key).", schema: tenantProvider } },
  errors: ["bad-input", "not-found"],
});

export const deleteProviderOperation = defineOperation({
  operationId: "deleteProvider",
  method: "DELETE",
  path: "/v1/providers/{providerId}",
  tag: "Providers",
  summary: "Remove one of the tenant's own providers (tenant admins)",
  description: "Agents that preferred it are routed to another provider from then on; its secret is kept. Built-in and environment ids are 404.",
  auth: "key",
  idempotent: true,
  params: providerParams,
  responses: { 200: { description: "Removed.", schema: { type: "object", required: ["id", "deleted"], properties: { id: { type: "string" }, deleted: { const: true } } } } },
  errors: ["bad-input", "not-found", "permission-denied"],
});
