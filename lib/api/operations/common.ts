import type { JsonSchema } from "@/lib/api/operation";

export const uuid = { type: "string", format: "uuid" } as const;
export const dateTime = { type: "string", format: "date-time" } as const;
export const nullable = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: "null" }] });

/** The error envelope every failure answers with. */
export const errorEnvelopeSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "requestId"],
      properties: {
        code: { type: "string", description: "Stable machine-readable discriminant (kebab-case)." },
        message: { type: "string" },
        details: { type: "object", additionalProperties: true, description: "Optional, kind-specific; `issues` lists problems with JSON pointers." },
        requestId: { type: "string", description: "The request id: the caller's X-Request-Id when it is a token of up to 128 letters, digits and `._:-`, else one the server assigned; also in the X-Request-Id response header." },
      },
    },
  },
} as const;

/** A list response: `{data, hasMore, nextCursor?}`. */
export function pageOf(item: JsonSchema): JsonSchema {
  return {
    type: "object",
    required: ["data", "hasMore"],
    properties: { data: { type: "array", items: item }, hasMore: { type: "boolean" }, nextCursor: { type: "string", description: "Pass as `cursor` for the next page." } },
  };
}

/** `limit` and `cursor`, the pagination query of every list. */
export const pageQuery = {
  limit: { type: "integer", minimum: 1, maximum: 100, default: 25, description: "Items per page, 1 to 100 (default 25)." },
  cursor: { type: "string", minLength: 1, description: "The `nextCursor` of the previous page." },
} as const;

export function pageParams(query: Record<string, unknown>): { limit: number; cursor?: string } {
  return { limit: (query.limit as number | undefined) ?? 25, cursor: query.cursor as string | undefined };
}
