import { FACT_TYPE_PATTERN, MAX_FACT_TYPE_LENGTH, RETRIEVAL_MODES, searchFactsByMode, type FactSearchScope, type QueryEmbedding, type RetrievalMode } from "@/lib/services/memory";
import { embedTexts, projectEmbeddingRoute } from "@/lib/services/fact-embeddings";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import type { NativeTool } from "./types";

const SCOPES: FactSearchScope[] = ["same-conversation", "same-project", "tenant"];

/**
 * Search over the memory store, best match first: by keyword (the facts sharing a word with the query), by meaning
 * (cosine similarity of the facts' vectors from the project's embedding model to the query's), or both fused.
 */
export const recall: NativeTool = {
  manifest: {
    id: "recall",
    version: "1.1.0",
    description:
      "Searches long-term memory for stored facts and returns the best matches first. Mode keyword (default): facts sharing words with the query (word forms count: \"emails\" finds \"email\"); semantic: facts close in meaning (\"billing dates\" finds \"invoices in March\"); both: the two fused. Scope: this conversation, this project (default) or the whole organisation.",
    transport: "native",
    mutating: false,
    resultIsOutsideData: true,
    needs: [{ name: "memory:facts" }],
    effects: [{ kind: "reads", resource: "memory:facts" }],
    input: {
      type: "object",
      required: ["query"],
      additionalProperties: false,
      properties: {
        query: { type: "string", minLength: 1, maxLength: 2000, description: "Keywords to look for." },
        types: {
          type: "array",
          minItems: 1,
          maxItems: 50,
          items: { type: "string", minLength: 1, maxLength: MAX_FACT_TYPE_LENGTH, pattern: FACT_TYPE_PATTERN },
          description: "Only facts of these types (default: every type).",
        },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "At most this many facts (default 10)." },
        scope: { enum: SCOPES, default: "same-project", description: "Where to search: same-conversation, same-project (default) or tenant." },
        mode: { enum: RETRIEVAL_MODES, default: "keyword", description: "How to match: keyword (default), semantic (by meaning) or both." },
      },
    },
    output: {
      type: "object",
      required: ["facts"],
      additionalProperties: false,
      properties: {
        facts: {
          type: "array",
          items: {
            type: "object",
            required: ["id", "type", "content", "createdAt"],
            additionalProperties: false,
            properties: {
              id: { type: "string", format: "uuid" },
              type: { type: "string" },
              content: { type: "string" },
              createdAt: { type: "string", format: "date-time" },
              score: { type: "number", description: "Its score in the ranking that ordered the answer (higher is better)." },
              foundBy: { enum: RETRIEVAL_MODES, description: "The ranking(s) that found it." },
            },
          },
        },
        skipped: { type: "integer", description: "semantic and both: facts in reach not embedded yet (not searched by meaning)." },
        warning: { type: "string", description: "Why nothing was searched by meaning (the query could not be embedded)." },
      },
    },
    metadata: { tags: ["built-in", "memory"] },
  },
  invoke: async (input, context) => {
    const scope = SCOPES.includes(input.scope as FactSearchScope) ? (input.scope as FactSearchScope) : "same-project";
    const mode = RETRIEVAL_MODES.includes(input.mode as RetrievalMode) ? (input.mode as RetrievalMode) : "keyword";
    const text = String(input.query);
    let embedding: QueryEmbedding | null = null;
    let warning: string | undefined;
    if (mode !== "keyword") {
      const route = await projectEmbeddingRoute(context.tenantId, context.projectId);
      try {
        const answer = await embedTexts(context.tenantId, route, [text]);
        embedding = { vector: answer.vectors[0], providerId: answer.providerId, model: answer.model };
      } catch (error) {
        warning = `the query could not be embedded with ${route.decision.providerId}/${route.decision.model}, so nothing was searched by meaning: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    const found = await searchFactsByMode(
      context,
      { text, types: Array.isArray(input.types) ? input.types.map(String) : undefined, limit: typeof input.limit === "number" ? input.limit : 10, scope, mode, embedding },
      context.db,
    );
    const facts = found.facts.map((fact) => ({ id: fact.id, type: fact.type, content: fact.content, createdAt: fact.createdAt, ...(mode === "keyword" ? {} : { score: fact.score, foundBy: fact.foundBy }) }));
    return { ok: true, output: { facts, ...(mode === "keyword" ? {} : { skipped: found.skipped }), ...(warning ? { warning } : {}) } };
  },
};

/**
 * `recall` 1.0.0, as it first shipped (keyword search only): kept so that an agent that pinned it resolves and runs
 * as before. The same code serves it; without `mode` a search is by keyword.
 */
export const recallFirstVersion: NativeTool = {
  manifest: (() => {
    const manifest = structuredClone(recall.manifest) as ToolManifest & { input: { properties: Record<string, unknown> }; output: { properties: Record<string, unknown> & { facts: { items: { properties: Record<string, unknown> } } } } };
    manifest.version = "1.0.0";
    manifest.description =
      "Searches long-term memory for stored facts by keywords and returns the best matches first. Facts are matched by the words they share with the query (word forms count: \"emails\" finds \"email\"). Scope: this conversation, this project (default) or the whole organisation.";
    delete manifest.input.properties.mode;
    delete manifest.output.properties.skipped;
    delete manifest.output.properties.warning;
    delete manifest.output.properties.facts.items.properties.score;
    delete manifest.output.properties.facts.items.properties.foundBy;
    return manifest;
  })(),
  invoke: (input, context) => recall.invoke(input, context),
};
