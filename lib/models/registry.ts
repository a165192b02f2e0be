/**
 * The model provider registry: which providers this deployment has and what their models can do.
 *
 * Describe only — no model calls live here (they are behind `ModelProvider`, lib/models/provider.ts, built from a
 * descriptor by lib/models/providers/index.ts with the key the caller reads from `apiKeyEnv`). Providers come from
 * three places: `dev-echo` is built in and always present (deterministic, no key, the router's last resort);
 * `scripted` is built in and listed when `KINDGI_DEV_PROVIDERS=1`; `openai` and `anthropic` appear when their
 * API key is set in the environment. A descriptor never holds a secret: keys are read by the calling code when
 * it calls, never copied here.
 */
import type { ProviderModel } from "@/lib/models/provider";

/** What the router matches against: the capability kind each provider serves. */
export const LLM_INFERENCE = "llm-inference";

/**
 * A model a provider offers (the calling code's `ProviderModel`, with its features always listed). Prices are USD
 * per million tokens; absent when unknown. Features use capability.schema.json names, plus `json-output`.
 */
export type ModelInfo = ProviderModel & { features: string[] };

export type ProviderKind = "dev-echo" | "scripted" | "openai-compatible" | "anthropic";

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
  /** The capability kind it serves (every model provider: llm-inference). */
  capabilityKind: string;
  models: ModelInfo[];
  source: "built-in" | "environment";
  /** A development provider (dev-echo, scripted): not a real model. */
  dev: boolean;
  routing: RoutingMode;
  /** Where the calling code sends requests, when configured (else the kind's public default); never shown by the API. */
  baseUrl?: string;
  /** The environment variable holding the API key, which the calling code reads when it calls (never the key). */
  apiKeyEnv?: "OPENAI_API_KEY" | "ANTHROPIC_API_KEY";
};

/** What GET /v1/providers shows of a provider. */
export type ProviderView = { id: string; kind: ProviderKind; models: ModelInfo[]; source: "built-in" | "environment" };

/** Known context sizes and list prices; a model not named here is listed without them. */
const KNOWN_MODELS: Record<string, Omit<ModelInfo, "name" | "features">> = {
  "gpt-4o-mini": { contextTokens: 128_000, inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6 },
  "gpt-4o": { contextTokens: 128_000, inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 },
  "claude-sonnet-4-5": { contextTokens: 200_000, inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
  "claude-haiku-4-5": { contextTokens: 200_000, inputUsdPerMTok: 1, outputUsdPerMTok: 5 },
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

/**
 * The providers configured for this process, in routing order: environment providers (openai, anthropic),
 * then `scripted` (KINDGI_DEV_PROVIDERS=1), then `dev-echo`, which is always present.
 * Reads `env` only; never returns a key.
 */
export function listProviders(env: Env = process.env): ProviderDescriptor[] {
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
  providers.push({ ...DEV_ECHO, models: DEV_ECHO.models.map((m) => ({ ...m, features: [...m.features] })) });
  return providers;
}

/** The public description of a provider: id, kind, models and where it comes from — no URL, no key. */
export function describeProvider(provider: ProviderDescriptor): ProviderView {
  return { id: provider.id, kind: provider.kind, models: provider.models.map((m) => ({ ...m, features: [...m.features] })), source: provider.source };
}
