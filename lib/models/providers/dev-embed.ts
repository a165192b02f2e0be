/**
 * `dev-embed`: the built-in deterministic embedding provider. It needs no key, makes no HTTP call, costs nothing,
 * and says in every answer that it is not a real model.
 *
 * A text's vector is feature hashing (signed, FNV-1a) of its lower-cased words, its word pairs and the character
 * trigrams of each word with boundary markers (`<invoice>` → `<in`, `inv`, …, `ce>`), scaled to length 1. Common
 * English function words ("the", "is", "my", …) are left out unless the text has nothing else, so that two texts are
 * close for the words that carry their content; the trigrams weigh almost as much as whole words, so spellings and
 * word forms meet ("favorite color" is close to "favourite colour"). Texts
 * that share words or word stems ("invoice", "invoices") come out closer than unrelated ones; the similarity is
 * lexical, never semantic ("bill" and "invoice" are strangers). The same text gives the same vector in every
 * process and every release that keeps `DEV_EMBED_DIMENSIONS` and the features.
 * Usage is estimated at one token per 4 characters.
 */
import { DEV_EMBED_DIMENSIONS, DEV_EMBED_ID, normalized, type EmbeddingProvider, type EmbeddingRequest, type EmbeddingResponse } from "@/lib/models/embedding";

export { DEV_EMBED_DIMENSIONS } from "@/lib/models/embedding";

/** The warning every dev-embed response carries. */
export const DEV_EMBED_WARNING = `dev-embed is not a real model: its ${DEV_EMBED_DIMENSIONS}-dimension vectors hash words, word pairs and character trigrams, so similarity is lexical, not semantic`;

/** How much each kind of feature weighs: whole words, then each character trigram, then word pairs. */
const WEIGHTS = { word: 0.6, pair: 0.3, trigram: 0.5 } as const;

/** Function words left out of the features (a text of nothing else keeps them). */
const STOP_WORDS = new Set(
  "a an and are as at be by do does for from has have how i if in is it its me my of on or our so that the their them there they this to was we were what when where which who why will with you your".split(" "),
);

/** The dev-embed provider. */
export function createDevEmbedProvider(): EmbeddingProvider {
  return {
    id: DEV_EMBED_ID,
    kind: DEV_EMBED_ID,
    async embed(request: EmbeddingRequest): Promise<EmbeddingResponse> {
      request.signal?.throwIfAborted();
      const vectors = request.inputs.map(devEmbedVector);
      const inputTokens = request.inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
      return { vectors, model: DEV_EMBED_ID, dimensions: DEV_EMBED_DIMENSIONS, usage: { inputTokens }, costUsd: 0, warnings: [DEV_EMBED_WARNING], attempts: 0 };
    },
  };
}

/** The dev-embed vector of `text` (length 1; all zeros for a text without letters or digits). */
export function devEmbedVector(text: string): number[] {
  const vector = new Array<number>(DEV_EMBED_DIMENSIONS).fill(0);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    // The low bits pick the slot, a high bit the sign, so that colliding features tend to cancel rather than pile up.
    vector[hash % DEV_EMBED_DIMENSIONS] += (hash & 0x8000_0000) === 0 ? weight : -weight;
  };
  const all = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const content = all.filter((word) => !STOP_WORDS.has(word));
  const words = content.length ? content : all;
  words.forEach((word, index) => {
    add(`w:${word}`, WEIGHTS.word);
    if (index > 0) add(`p:${words[index - 1]} ${word}`, WEIGHTS.pair);
    const marked = Array.from(`<${word}>`);
    for (let i = 0; i + 3 <= marked.length; i++) add(`t:${marked.slice(i, i + 3).join("")}`, WEIGHTS.trigram);
  });
  return normalized(vector);
}

/** 32-bit FNV-1a over the UTF-16 code units of `text` (stable across processes and platforms). */
function fnv1a(text: string): number {
  let hash = 0x811c_9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x0100_0193);
  }
  return hash >>> 0;
}
