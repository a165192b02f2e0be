import { FACT_TYPE_PATTERN, MAX_FACT_TYPE_LENGTH, searchFacts, type FactSearchScope } from "@/lib/services/memory";
import type { NativeTool } from "./types";

const SCOPES: FactSearchScope[] = ["same-conversation", "same-project", "tenant"];

/** Keyword search over the memory store: the facts sharing a word with the query, best match first. */
export const recall: NativeTool = {
  manifest: {
    id: "recall",
    version: "1.0.0",
    description:
      "Searches long-term memory for stored facts by keywords and returns the best matches first. Facts are matched by the words they share with the query (word forms count: \"emails\" finds \"email\"). Scope: this conversation, this project (default) or the whole organisation.",
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
            properties: { id: { type: "string", format: "uuid" }, type: { type: "string" }, content: { type: "string" }, createdAt: { type: "string", format: "date-time" } },
          },
        },
      },
    },
    metadata: { tags: ["built-in", "memory"] },
  },
  invoke: async (input, context) => {
    const scope = SCOPES.includes(input.scope as FactSearchScope) ? (input.scope as FactSearchScope) : "same-project";
    const facts = await searchFacts(
      context,
      { text: String(input.query), types: Array.isArray(input.types) ? input.types.map(String) : undefined, limit: typeof input.limit === "number" ? input.limit : 10, scope },
      context.db,
    );
    return { ok: true, output: { facts: facts.map((fact) => ({ id: fact.id, type: fact.type, content: fact.content, createdAt: fact.createdAt })) } };
  },
};
