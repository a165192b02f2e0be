/**
 * The model provider registry: which providers this deployment has and what their models can do.
 *
 * Embedding providers (capability kind `embedding`, lib/models/embedding.ts) are listed here too, each with its own
 * id: `dev-embed` is built in and always present (deterministic, no key, the fallback for `embedding`, as dev-echo is
 * for `llm-inference`); `openai-embeddings` appears with `openai` (same key and base URL; models from
 * `OPENAI_EMBEDDING_MODELS`, default `text-embedding-3-small`, `none` for none); a tenant configures one with the kind
 * `openai-compatible-embeddings`.
 *
 * Describe only — no model calls live here (they are behind `ModelProvider`, lib/models/provider.ts, built from a
 * descriptor by lib/models/providers/index.ts with the key the caller reads from `apiKeyEnv` or `apiKeySecret`).
 * Providers come from four places: `dev-echo` is built in and always present (deterministic, no key, the router's
 * last resort); `scripted` is built in and listed when `KINDGI_DEV_PROVIDERS=1`; `openai` and `anthropic` appear
 * when their API key is set in the environment; a tenant configures its own through `POST /v1/providers`
 * (lib/services/model-providers.ts turns those rows into descriptors). A descriptor never holds a secret: keys are
 * read by the calling code when it calls, never copied here.
 */
import { DEV_EMBED_DIMENSIONS, DEV_EMBED_ID, EMBEDDING } from "@/lib/models/embedding";
import type { ProviderModel } from "@/lib/models/provider";

/** What the router matches against: the capability kind each provider serves. */
export const LLM_INFERENCE = "llm-inference";

/**
 * A model a provider offers (the calling code's `ProviderModel`, with its features always listed). Prices are USD
 * per million tokens; absent when unknown. Features use capability.schema.json names, plus `json-output`.
 * `dimensions`: an embedding model's vector length, when declared (checked against every answer, and sent).
 */
export type ModelInfo = ProviderModel & { features: string[]; dimensions?: number };

/** The model kinds (llm-inference) and the embedding kinds (`dev-embed`, `openai-compatible-embeddings`). */
export type ProviderKind = "dev-echo" | "scripted" | "openai-compatible" | "anthropic" | "dev-embed" | "openai-compatible-embeddings";

/** The embedding provider kinds: they serve the capability kind `embedding`. */
export const EMBEDDING_PROVIDER_KINDS: readonly ProviderKind[] = Object.freeze(["dev-embed", "openai-compatible-embeddings"]);

/** The capability kind a provider of `kind` serves. */
export const capabilityKindOf = (kind: ProviderKind): string => (EMBEDDING_PROVIDER_KINDS.includes(kind) ? EMBEDDING : LLM_INFERENCE);

/** What a provider id looks like (a tenant's ids follow it; the built-in and environment ids do too). */
export const PROVIDER_ID_PATTERN = "^[a-z0-9][a-z0-9._-]{0,62}$";

/**
 * The ids of the built-in and environment providers. A tenant may not take one, even while the environment
 * provider is not configured: setting its key later would otherwise shadow the tenant's provider.
 */
export const RESERVED_PROVIDER_IDS: readonly string[] = Object.freeze(["dev-echo", "scripted", "openai", "anthropic", DEV_EMBED_ID, "openai-embeddings"]);

/** Where a provider comes from. */
export type ProviderSource = "built-in" | "environment" | "tenant";

/**
 * How the router considers a provider: `normal` providers are routed to in registry order; an `explicit` one only
 * when the agent names it (preferredProvider or a `providers.allow` need); the `fallback` one only when nothing
 * else fits.
 */
export type RoutingMode = "normal" | "explicit" | "fallback";

/** A provider as the router and the kernel see it. */
export type ProviderDescriptor = {
  id: string;
  kind: ProviderKind;
  /** The capability kind it serves: llm-inference (model providers) or embedding (embedding providers). */
  capabilityKind: string;
  models: ModelInfo[];
  source: ProviderSource;
  /** A development provider (dev-echo, scripted): not a real model. */
  dev: boolean;
  routing: RoutingMode;
  /**
   * Where the calling code sends requests, when configured (else the kind's public default). The API shows it
   * only for a tenant's own providers (the tenant typed it); an environment provider's URL stays private.
   */
  baseUrl?: string;
  /** The environment variable holding the API key, which the calling code reads when it calls (never the key). */
  apiKeyEnv?: "OPENAI_API_KEY" | "ANTHROPIC_API_KEY";
  /** A tenant provider's key: the NAME of the tenant's secret, resolved on every call (never the value). */
  apiKeySecret?: string;
  /** A tenant provider limited to the runs of these projects; null or absent: every project. */
  projectIds?: string[] | null;
};

/** What GET /v1/providers shows of a provider: a tenant's own providers add their URL and the name of their key's secret. */
export type ProviderView = { id: string; kind: ProviderKind; capabilityKind: string; models: ModelInfo[]; source: ProviderSource; baseUrl?: string; apiKeySecret?: string; projectIds?: string[] | null };

/** Known context sizes and list prices; a model not named here is listed without them. */
const KNOWN_MODELS: Record<string, Omit<ModelInfo, "name" | "features">> = {
  "gpt-4o-mini": { contextTokens: 128_000, inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6 },
  "gpt-4o": { contextTokens: 128_000, inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 },
  "claude-sonnet-4-5": { contextTokens: 200_000, inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
  "claude-haiku-4-5": { contextTokens: 200_000, inputUsdPerMTok: 1, outputUsdPerMTok: 5 },
  // Embedding models: no output tokens. text-embedding-ada-002 takes no `dimensions` parameter, so it declares none.
  "text-embedding-3-small": { contextTokens: 8_191, dimensions: 1_536, inputUsdPerMTok: 0.02, outputUsdPerMTok: 0 },
  "text-embedding-3-large": { contextTokens: 8_191, dimensions: 3_072, inputUsdPerMTok: 0.13, outputUsdPerMTok: 0 },
  "text-embedding-ada-002": { contextTokens: 8_191, inputUsdPerMTok: 0.1, outputUsdPerMTok: 0 },
};

type Env = Record<string, string | undefined>;

/** Model names from a comma list (blank entries dropped, duplicates once), else the default. */
function modelNames(list: string | undefined, fallback: string): string[] {
  const names = [...new Set((list ?? "").split(",").map((name) => name.trim()).filter(Boolean))];
  return names.length ? names : [fallback];
}

const model = (name: string, features: string[]): ModelInfo => ({ name, ...KNOWN_MODELS[name], features: [...features] });

const isSet = (value: string | undefined): value is string => typeof value === "string" && value.trim() !== "";

/** The built-in deterministic provider: needs no key, says in every answer that it is not a real model. */
export const DEV_ECHO: ProviderDescriptor = Object.freeze({
  id: "dev-echo",
  kind: "dev-echo",
  capabilityKind: LLM_INFERENCE,
  models: [{ name: "dev-echo", features: ["tool-use"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 }],
  source: "built-in",
  dev: true,
  routing: "fallback",
}) as ProviderDescriptor;

/** The built-in deterministic embedding provider: needs no key, says in every answer that it is not a real model. */
export const DEV_EMBED: ProviderDescriptor = Object.freeze({
  id: DEV_EMBED_ID,
  kind: "dev-embed",
  capabilityKind: EMBEDDING,
  models: [{ name: DEV_EMBED_ID, features: [], dimensions: DEV_EMBED_DIMENSIONS, inputUsdPerMTok: 0, outputUsdPerMTok: 0 }],
  source: "built-in",
  dev: true,
  routing: "fallback",
}) as ProviderDescriptor;

/**
 * The providers configured for this process, in routing order: environment providers (openai, openai-embeddings,
 * anthropic), then `scripted` (KINDGI_DEV_PROVIDERS=1), then `dev-embed` and `dev-echo`, which are always present.
 * Reads `env` only; never returns a key.
 */
export function listProviders(env: Env = process.env): readonly ProviderDescriptor[] {
  // The answer depends on these variables only: kept (frozen) while they stay the same, so that routing, which runs
  // on every turn, can keep its decisions for the same descriptors.
  const key = PROVIDER_VARIABLES.map((name) => env[name] ?? "\u0001").join("\u0000");
  if (lastListed?.key !== key) lastListed = { key, providers: deepFreeze(configuredProviders(env)) };
  return lastListed.providers;
}

/** The environment variables {@link listProviders} reads (its answer is kept while they stay the same). */
export const PROVIDER_VARIABLES = ["OPENAI_API_KEY", "OPENAI_MODELS", "OPENAI_EMBEDDING_MODELS", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_MODELS", "ANTHROPIC_BASE_URL", "KINDGI_DEV_PROVIDERS"] as const;
let lastListed: { key: string; providers: readonly ProviderDescriptor[] } | undefined;

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function configuredProviders(env: Env): ProviderDescriptor[] {
  const providers: ProviderDescriptor[] = [];
  if (isSet(env.OPENAI_API_KEY)) {
    providers.push({
      id: "openai",
      kind: "openai-compatible",
      capabilityKind: LLM_INFERENCE,
      models: modelNames(env.OPENAI_MODELS, "gpt-4o-mini").map((name) => model(name, ["tool-use", "json-output"])),
      source: "environment",
      dev: false,
      routing: "normal",
      ...(isSet(env.OPENAI_BASE_URL) ? { baseUrl: env.OPENAI_BASE_URL.trim() } : {}),
      apiKeyEnv: "OPENAI_API_KEY",
    });
    if (env.OPENAI_EMBEDDING_MODELS?.trim().toLowerCase() !== "none") {
      providers.push({
        id: "openai-embeddings",
        kind: "openai-compatible-embeddings",
        capabilityKind: EMBEDDING,
        models: modelNames(env.OPENAI_EMBEDDING_MODELS, "text-embedding-3-small").map((name) => model(name, [])),
        source: "environment",
        dev: false,
        routing: "normal",
        ...(isSet(env.OPENAI_BASE_URL) ? { baseUrl: env.OPENAI_BASE_URL.trim() } : {}),
        apiKeyEnv: "OPENAI_API_KEY",
      });
    }
  }
  if (isSet(env.ANTHROPIC_API_KEY)) {
    providers.push({
      id: "anthropic",
      kind: "anthropic",
      capabilityKind: LLM_INFERENCE,
      models: modelNames(env.ANTHROPIC_MODELS, "claude-sonnet-4-5").map((name) => model(name, ["tool-use", "json-output"])),
      source: "environment",
      dev: false,
      routing: "normal",
      ...(isSet(env.ANTHROPIC_BASE_URL) ? { baseUrl: env.ANTHROPIC_BASE_URL.trim() } : {}),
      apiKeyEnv: "ANTHROPIC_API_KEY",
    });
  }
  if (env.KINDGI_DEV_PROVIDERS === "1") {
    providers.push({
      id: "scripted",
      kind: "scripted",
      capabilityKind: LLM_INFERENCE,
      models: [{ name: "scripted", features: ["tool-use", "json-output"], inputUsdPerMTok: 0, outputUsdPerMTok: 0 }],
      source: "built-in",
      dev: true,
      routing: "explicit",
    });
  }
  // dev-echo stays last (the console marks the last row): routing does not compare providers of different kinds.
  providers.push({ ...DEV_EMBED, models: DEV_EMBED.models.map((m) => ({ ...m, features: [...m.features] })) });
  providers.push({ ...DEV_ECHO, models: DEV_ECHO.models.map((m) => ({ ...m, features: [...m.features] })) });
  return providers;
}

/**
 * The public description of a provider: id, kind, models and where it comes from; never a key. A tenant's own
 * provider also shows its URL and its secret's name (the tenant configured both); any other provider shows no URL.
 */
export function describeProvider(provider: ProviderDescriptor): ProviderView {
  const view: ProviderView = { id: provider.id, kind: provider.kind, capabilityKind: provider.capabilityKind, models: provider.models.map((m) => ({ ...m, features: [...m.features] })), source: provider.source };
  if (provider.source === "tenant") return { ...view, baseUrl: provider.baseUrl, apiKeySecret: provider.apiKeySecret, projectIds: provider.projectIds ?? null };
  return view;
}
