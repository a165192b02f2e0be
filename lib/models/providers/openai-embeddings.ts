/**
 * OpenAI-compatible embeddings (`POST {baseUrl}/embeddings`): OpenAI itself, Ollama, vLLM, LM Studio and other
 * servers that speak the same wire format. The inputs are sent in batches (at most `maxBatchInputs` texts and
 * about `maxBatchChars` characters per request; a longer text goes alone), one batch after the other, each under
 * the transport's retry policy (429 with Retry-After, 5xx, timeouts: lib/models/providers/http.ts). Every answer is
 * checked: one vector per input (reordered by `index`), all of one length, and that length the model's declared
 * `dimensions` when it declares one — anything else fails with `provider-bad-response`.
 */
import { type EmbeddingProvider, type EmbeddingRequest, type EmbeddingResponse } from "@/lib/models/embedding";
import { ModelProviderError, costUsd, type ProviderModel } from "@/lib/models/provider";
import { StreamFailure, postJson } from "@/lib/models/providers/http";
import { NO_USAGE, endpoint, isRecord, tokenCount, type HttpProviderConfig } from "@/lib/models/providers/shared";
import { OPENAI_DEFAULT_BASE_URL } from "@/lib/models/providers/openai-compatible";

/** The kind of an OpenAI-compatible embedding provider. */
export const OPENAI_EMBEDDINGS_KIND = "openai-compatible-embeddings";

/** Texts per request unless configured (OpenAI accepts up to 2048; local servers often far fewer). */
export const DEFAULT_MAX_BATCH_INPUTS = 96;
/** Characters per request unless configured (about 25k tokens; OpenAI's cap is 300k tokens per request). */
export const DEFAULT_MAX_BATCH_CHARS = 100_000;

/** An embedding model as configured: `dimensions`, when declared, is checked against every answer and sent. */
export type EmbeddingModel = ProviderModel & { dimensions?: number };

/** Configuration of an OpenAI-compatible embedding provider (the key resolved by the caller). */
export type EmbeddingProviderConfig = Omit<HttpProviderConfig, "models"> & {
  models?: EmbeddingModel[];
  maxBatchInputs?: number;
  maxBatchChars?: number;
};

/** One batch's answer as read from the wire. */
type BatchAnswer = { vectors: number[][]; model: string | undefined; inputTokens: number | undefined };

/**
 * A provider that speaks OpenAI's `/v1/embeddings`. Sends `Authorization: Bearer <apiKey>` unless the key is empty
 * (a local server). An empty input text is refused before any request (`provider-request-failed`, attempts 0): the
 * API refuses it too. No inputs: no request, no vectors.
 */
export function createOpenAIEmbeddingProvider(config: EmbeddingProviderConfig): EmbeddingProvider {
  const url = endpoint(config.baseUrl ?? OPENAI_DEFAULT_BASE_URL, "/embeddings");
  const headers: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};
  const maxInputs = Math.max(1, Math.floor(config.maxBatchInputs ?? DEFAULT_MAX_BATCH_INPUTS));
  const maxChars = Math.max(1, Math.floor(config.maxBatchChars ?? DEFAULT_MAX_BATCH_CHARS));
  return {
    id: config.id,
    kind: OPENAI_EMBEDDINGS_KIND,
    async embed(request: EmbeddingRequest): Promise<EmbeddingResponse> {
      const info = config.models?.find((candidate) => candidate.name === request.model);
      const declared = info?.dimensions;
      const empty = request.inputs.findIndex((text) => text === "");
      if (empty >= 0) throw new ModelProviderError("provider-request-failed", `${config.id}: input ${empty} is an empty text, which an embeddings API refuses`, { attempts: 0 });
      const vectors: number[][] = [];
      let attempts = 0;
      let inputTokens = 0;
      let missingUsage = false;
      let answeredModel: string | undefined;
      for (const batch of batches(request.inputs, maxInputs, maxChars)) {
        const result = await postJson({
          providerId: config.id,
          url,
          headers,
          body: { model: request.model, input: batch, encoding_format: "float", ...(declared !== undefined && { dimensions: declared }) },
          secret: config.apiKey,
          signal: request.signal,
          options: config.http,
          parse: (json) => parseEmbeddings(json, batch.length, request.model, declared),
        }).catch((error: unknown) => {
          // Attempts of the batches before this one count too.
          if (error instanceof ModelProviderError && attempts > 0) throw new ModelProviderError(error.code, error.message, { status: error.status, attempts: attempts + error.attempts });
          throw error;
        });
        attempts += result.attempts;
        const answer = result.answer;
        const length = vectors[0]?.length;
        if (length !== undefined && answer.vectors[0].length !== length) {
          throw new ModelProviderError("provider-bad-response", `${config.id}: model "${request.model}" answered vectors of ${answer.vectors[0].length} numbers for inputs ${vectors.length}–${vectors.length + batch.length - 1}, after ${length} for the inputs before`, { status: 200, attempts });
        }
        vectors.push(...answer.vectors);
        answeredModel ??= answer.model;
        if (answer.inputTokens === undefined) missingUsage = true;
        else inputTokens += answer.inputTokens;
      }
      const warnings: string[] = [];
      if (missingUsage) warnings.push(`${config.id}: ${NO_USAGE}`);
      const priced = info?.inputUsdPerMTok !== undefined;
      if (!priced) warnings.push(`${config.id}: no price is configured for model "${request.model}"; a missing price counts as 0 USD`);
      return {
        vectors,
        model: answeredModel ?? request.model,
        dimensions: vectors[0]?.length ?? declared ?? 0,
        usage: { inputTokens },
        costUsd: costUsd({ inputTokens, outputTokens: 0 }, { inputUsdPerMTok: info?.inputUsdPerMTok }),
        warnings,
        attempts,
      };
    },
  };
}

/** The inputs cut into batches of at most `maxInputs` texts and about `maxChars` characters (a longer text alone), in order. */
export function batches(inputs: readonly string[], maxInputs: number, maxChars: number): string[][] {
  const result: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const text of inputs) {
    if (current.length > 0 && (current.length >= maxInputs || chars + text.length > maxChars)) {
      result.push(current);
      current = [];
      chars = 0;
    }
    current.push(text);
    chars += text.length;
  }
  if (current.length > 0) result.push(current);
  return result;
}

/**
 * Reads an embeddings answer (`{object: "list", data: [{object: "embedding", index, embedding}], model, usage}`) for
 * a batch of `count` inputs: the vectors in input order. Throws a non-retryable `StreamFailure`
 * (provider-bad-response) when it is not one, when the vectors are not one per input, or differ in length, or
 * differ from the declared `dimensions`.
 */
export function parseEmbeddings(json: unknown, count: number, model: string, dimensions: number | undefined): BatchAnswer {
  const bad = (why: string) => new StreamFailure("provider-bad-response", why, { retryable: false });
  if (!isRecord(json) || !Array.isArray(json.data)) throw bad("the answer is not an embeddings list (no `data` array)");
  if (json.data.length !== count) throw bad(`the answer has ${json.data.length} embeddings for ${count} inputs`);
  const vectors: (number[] | undefined)[] = new Array(count).fill(undefined);
  json.data.forEach((item, position) => {
    if (!isRecord(item)) throw bad(`data[${position}] is not an object`);
    const index = item.index === undefined ? position : item.index;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count) throw bad(`data[${position}].index ${JSON.stringify(item.index)} is not an input index (0–${count - 1})`);
    if (vectors[index] !== undefined) throw bad(`data[${position}].index ${index} repeats an earlier embedding's index`);
    const { embedding } = item;
    if (typeof embedding === "string") throw bad(`data[${position}].embedding is a string (base64?), not the float array asked for`);
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((value) => typeof value === "number" && Number.isFinite(value))) {
      throw bad(`data[${position}].embedding is not a non-empty array of finite numbers`);
    }
    vectors[index] = embedding as number[];
  });
  const ordered = vectors as number[][];
  const length = ordered[0].length;
  const other = ordered.findIndex((vector) => vector.length !== length);
  if (other >= 0) throw bad(`model "${model}" answered vectors of different lengths: ${length} for input 0, ${ordered[other].length} for input ${other}`);
  if (dimensions !== undefined && length !== dimensions) throw bad(`dimension mismatch: model "${model}" answered vectors of ${length} numbers; it is configured with ${dimensions} dimensions`);
  const usage = isRecord(json.usage) ? json.usage : undefined;
  const tokens = usage && (typeof usage.prompt_tokens === "number" || typeof usage.total_tokens === "number") ? tokenCount(usage.prompt_tokens ?? usage.total_tokens) : undefined;
  return { vectors: ordered, model: typeof json.model === "string" && json.model !== "" ? json.model : undefined, inputTokens: tokens };
}
