/**
 * The one interface every embedding provider implements (`dev-embed`, OpenAI-compatible `/v1/embeddings`), beside
 * the model providers (lib/models/provider.ts). An embedding provider serves the capability kind `embedding`; the
 * memory store (lib/services/memory.ts) embeds facts and retrieval queries through it. Free of HTTP frameworks and
 * React; failures are `ModelProviderError`s, as the model providers' are.
 */

/** The capability kind an embedding provider serves (capability entries `{kind: "embedding"}`). */
export const EMBEDDING = "embedding";

/** The built-in deterministic embedding provider's id (and its one model's name). */
export const DEV_EMBED_ID = "dev-embed";

/** The length of every `dev-embed` vector. */
export const DEV_EMBED_DIMENSIONS = 512;

/** One embedding call: `inputs` are embedded in order (a provider batches them as its API allows). */
export type EmbeddingRequest = {
  model: string;
  inputs: string[];
  /** Aborts the call, retries and backoff waits included. */
  signal?: AbortSignal;
};

/** What an embedding call answered: one vector per input, in the inputs' order, all of `dimensions` numbers. */
export type EmbeddingResponse = {
  vectors: number[][];
  /** The model as the provider named it. */
  model: string;
  dimensions: number;
  usage: { inputTokens: number };
  costUsd: number;
  /** Things the caller should know (a dev provider, an unknown price); never secrets. */
  warnings: string[];
  /** HTTP attempts made, retries included (0 for a provider that makes no HTTP call). */
  attempts: number;
};

/** An embedding provider. */
export interface EmbeddingProvider {
  readonly id: string;
  readonly kind: string;
  embed(request: EmbeddingRequest): Promise<EmbeddingResponse>;
}

/** The vector scaled to length 1 (a zero vector stays zero), so that a dot product is the cosine similarity. */
export function normalized(vector: readonly number[]): number[] {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const length = Math.sqrt(sum);
  return length > 0 ? vector.map((value) => value / length) : vector.map(() => 0);
}
