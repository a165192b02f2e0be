import type { ErrorCode } from "@/lib/errors";

export type JsonSchema = Record<string, unknown>;
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** How a path parameter is checked before any database access. */
export type ParamKind = "uuid" | "catalogId" | "version" | "secretName" | "providerId";

/**
 * One /v1 operation: the single description from which the route validates its input and
 * `/v1/openapi.json` documents it.
 */
export type Operation = {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form, e.g. `/v1/tools/{toolId}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** `key`: a bearer API key; `operator`: KINDGI_OPERATOR_TOKEN (the route exists only when it is set); `none`: public. */
  auth: "key" | "operator" | "none";
  params?: Record<string, { kind: ParamKind; description: string }>;
  /** Query parameters, each a JSON Schema of a scalar; unknown ones are refused. */
  query?: Record<string, JsonSchema & { description: string }>;
  body?: {
    schema: JsonSchema;
    /**
     * `schema`: the wrapper validates the whole body; `top-level`: only unknown top-level fields, the service validates
     * the rest; `any-object`: any JSON object (a webhook's payload), read by the service as sent (`rawBody`).
     */
    validation: "schema" | "top-level" | "any-object";
    /** An empty body is allowed (treated as `{}`). */
    optional?: boolean;
  };
  /** Success responses by status. */
  responses: Record<number, { description: string; schema: JsonSchema; /** Default application/json. */ contentType?: string; /** Other media types the same status can answer with (content negotiation by Accept). */ alsoAs?: Record<string, JsonSchema> }>;
  /** Error codes this operation can answer with, besides the ones every route has. */
  errors: ErrorCode[];
  /** Honours the Idempotency-Key header. */
  idempotent?: boolean;
  /**
   * A request that sends an Origin header must come from our own origin or one in KINDGI_ALLOWED_ORIGINS, whatever
   * its credential (403 origin-not-allowed, before authentication): a protocol door a local client reaches (DNS rebinding).
   */
  sameOriginOnly?: boolean;
  /** The path of the RFC 9728 protected-resource metadata a 401 points at (`WWW-Authenticate: Bearer resource_metadata=…`). */
  resourceMetadataPath?: string;
  /**
   * `openai`: errors also carry OpenAI's fields (`type`, `param`, with this API's `code` and `message`), so that the
   * OpenAI SDKs raise their usual exceptions (the OpenAI-compatible routes).
   */
  errorShape?: "openai";
};

export function defineOperation<const T extends Operation>(operation: T): T {
  return operation;
}
