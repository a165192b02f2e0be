import { FACT_TYPE_PATTERN, MAX_FACT_CONTENT_LENGTH, MAX_FACT_TYPE_LENGTH, rememberFact } from "@/lib/services/memory";
import type { NativeTool } from "./types";

/** Stores a fact in the memory store, in the run's project and conversation, for later turns to retrieve. */
export const remember: NativeTool = {
  manifest: {
    id: "remember",
    version: "1.0.0",
    description:
      "Stores a fact in long-term memory so that later turns and conversations of this project can recall it. Store one self-contained statement per call (e.g. \"The customer prefers email over phone\"), with a type that groups similar facts (e.g. note, preference, contact).",
    transport: "native",
    mutating: true,
    needs: [{ name: "memory:facts" }],
    effects: [{ kind: "writes", resource: "memory:facts" }],
    input: {
      type: "object",
      required: ["content"],
      additionalProperties: false,
      properties: {
        content: { type: "string", minLength: 1, maxLength: MAX_FACT_CONTENT_LENGTH, pattern: "\\S", description: "The fact, as one self-contained statement." },
        type: {
          type: "string",
          minLength: 1,
          maxLength: MAX_FACT_TYPE_LENGTH,
          pattern: FACT_TYPE_PATTERN,
          default: "note",
          description: "A lowercase slug grouping similar facts, e.g. note, preference, contact (default note).",
        },
      },
    },
    output: {
      type: "object",
      required: ["factId", "type"],
      additionalProperties: false,
      properties: { factId: { type: "string", format: "uuid", description: "The stored fact's id." }, type: { type: "string" } },
    },
    metadata: { tags: ["built-in", "memory"] },
  },
  invoke: async (input, context) => {
    const fact = await rememberFact(context, { type: typeof input.type === "string" ? input.type : "note", content: String(input.content) }, context.db);
    return { ok: true, output: { factId: fact.id, type: fact.type } };
  },
};
