/**
 * Builds a `ModelProvider` from a configuration: a registry descriptor (`lib/models/registry.ts`) or a tenant's
 * provider, with the API key the caller resolved (environment or stored secret) added.
 */
import type { ModelProvider } from "@/lib/models/provider";
import { createAnthropicProvider, type AnthropicProviderConfig } from "@/lib/models/providers/anthropic";
import { createDevEchoProvider } from "@/lib/models/providers/dev-echo";
import { createOpenAICompatibleProvider } from "@/lib/models/providers/openai-compatible";
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
