/**
 * Builds a `ModelProvider` (or an `EmbeddingProvider`) from a configuration: a registry descriptor
 * (`lib/models/registry.ts`) or a tenant's provider, with the API key the caller resolved (environment or stored
 * secret) added.
 */
import type { EmbeddingProvider } from "@/lib/models/embedding";
import type { ModelProvider } from "@/lib/models/provider";
import { createAnthropicProvider, type AnthropicProviderConfig } from "@/lib/models/providers/anthropic";
import { createDevEchoProvider } from "@/lib/models/providers/dev-echo";
import { createDevEmbedProvider } from "@/lib/models/providers/dev-embed";
import { createOpenAICompatibleProvider } from "@/lib/models/providers/openai-compatible";
import { createOpenAIEmbeddingProvider, type EmbeddingProviderConfig } from "@/lib/models/providers/openai-embeddings";
import { createScriptedProvider } from "@/lib/models/providers/scripted";
import type { HttpProviderConfig } from "@/lib/models/providers/shared";

/** What `createModelProvider` needs per kind; the dev kinds need nothing (their ids are fixed). */
export type ProviderConfig =
  | { kind: "dev-echo" }
  | { kind: "scripted" }
  | ({ kind: "openai-compatible" } & HttpProviderConfig)
  | ({ kind: "anthropic" } & AnthropicProviderConfig);

/** The provider for `config`. */
export function createModelProvider(config: ProviderConfig): ModelProvider {
  switch (config.kind) {
    case "dev-echo":
      return createDevEchoProvider();
    case "scripted":
      return createScriptedProvider();
    case "openai-compatible":
      return createOpenAICompatibleProvider(config);
    case "anthropic":
      return createAnthropicProvider(config);
  }
}

/** What `createEmbeddingProvider` needs per kind; `dev-embed` needs nothing. */
export type EmbeddingProviderKindConfig = { kind: "dev-embed" } | ({ kind: "openai-compatible-embeddings" } & EmbeddingProviderConfig);

/** The embedding provider for `config`. */
export function createEmbeddingProvider(config: EmbeddingProviderKindConfig): EmbeddingProvider {
  switch (config.kind) {
    case "dev-embed":
      return createDevEmbedProvider();
    case "openai-compatible-embeddings":
      return createOpenAIEmbeddingProvider(config);
  }
}
