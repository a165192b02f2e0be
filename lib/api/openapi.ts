import { errorStatus, type ErrorCode } from "@/lib/errors";
import type { JsonSchema, Operation } from "@/lib/api/operation";
import { allOperations } from "@/lib/api/operations";
import { errorEnvelopeSchema } from "@/lib/api/operations/common";
import { PROVIDER_ID_PATTERN } from "@/lib/models/registry";
import { catalogIdSchema } from "@/lib/ids";
import { TOOL_VERSION_PATTERN } from "@/lib/tools/manifest-schema";

const paramSchemas = {
  uuid: { type: "string", format: "uuid" },
  catalogId: catalogIdSchema,
  version: { type: "string", pattern: TOOL_VERSION_PATTERN },
  secretName: { type: "string", pattern: "^[A-Za-z0-9_.-]{1,128}$" },
  providerId: { type: "string", pattern: PROVIDER_ID_PATTERN },
} as const;

/** Every route may answer these besides its own. */
const commonErrors: ErrorCode[] = ["internal-server-error"];
const authErrors: ErrorCode[] = ["auth-missing", "auth-invalid", "auth-revoked"];

/**
 * Moves `$defs` of embedded schemas into `components.schemas` and rewrites their `$ref`s, dropping
 * `$schema`/`$id` (OpenAPI 3.1's dialect is JSON Schema 2020-12 already).
 */
function hoist(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => hoist(item, components));
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema" || key === "$id") continue;
    if (key === "$defs") {
      for (const [name, def] of Object.entries(value as Record<string, unknown>)) components[name] ??= hoist(def, components);
      continue;
    }
    if (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")) out[key] = `#/components/schemas/${value.slice("#/$defs/".length)}`;
    else out[key] = hoist(value, components);
  }
  return out;
}

/**
 * The schema with its `$defs` written in place of each `$ref` to them (a `$ref`'s sibling keywords win), dropping
 * `$schema`/`$id`/`$defs`. Request bodies are inlined: client generators (openapi-typescript) type a property that has
 * a `default` as always present everywhere except under a request body, so a shared component would make
 * `spec.timeoutMs` or `needs[].optional` required in what a client sends.
 */
function inline(schema: unknown, defs: Record<string, unknown> = {}, expanding: readonly string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inline(item, defs, expanding));
  if (typeof schema !== "object" || schema === null) return schema;
  const record = schema as Record<string, unknown>;
  const scope = typeof record.$defs === "object" && record.$defs !== null ? { ...defs, ...(record.$defs as Record<string, unknown>) } : defs;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === "$schema" || key === "$id" || key === "$defs") continue;
    if (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")) {
      const name = value.slice("#/$defs/".length);
      if (!(name in scope) || expanding.includes(name)) throw new Error(`cannot inline $ref ${value}: ${name in scope ? "recursive" : "unknown"}`);
      Object.assign(out, inline(scope[name], scope, [...expanding, name]), { ...out });
      continue;
    }
    out[key] = inline(value, scope, expanding);
  }
  return out;
}

function errorResponses(operation: Operation): Record<string, unknown> {
  const codes = [...new Set([...operation.errors, ...(operation.auth === "none" ? [] : authErrors), ...(operation.auth === "key" && operation.method !== "GET" ? (["csrf-origin-mismatch"] as ErrorCode[]) : []), ...(operation.idempotent ? (["idempotency-key-body-mismatch", "idempotency-key-in-flight", "idempotency-key-replay-withheld", "bad-input"] as ErrorCode[]) : []), ...commonErrors])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [
      String(status),
      { description: `Error codes: ${list.join(", ")}.`, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } } },
    ]),
  );
}

function operationObject(operation: Operation, components: Record<string, unknown>) {
  const parameters: unknown[] = [];
  for (const [name, spec] of Object.entries(operation.params ?? {})) parameters.push({ name, in: "path", required: true, description: spec.description, schema: paramSchemas[spec.kind] });
  for (const [name, schema] of Object.entries(operation.query ?? {})) {
    const { description, ...rest } = schema;
    parameters.push({ name, in: "query", required: false, description, schema: rest });
  }
  if (operation.idempotent)
    parameters.push({ name: "Idempotency-Key", in: "header", required: false, description: "Retries with the same key and body replay the first success byte for byte (X-Idempotent-Replay: true); kept 24 h.", schema: { type: "string", minLength: 1, maxLength: 255 } });
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    const content: Record<string, unknown> = { [response.contentType ?? "application/json"]: { schema: hoist(response.schema, components) } };
    for (const [type, schema] of Object.entries(response.alsoAs ?? {})) content[type] = { schema: hoist(schema, components) };
    // A 204 has no body (RFC 9110), so no content either.
    responses[status] = status === "204" ? { description: response.description } : { description: response.description, content };
  }
  Object.assign(responses, errorResponses(operation));
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.auth === "none" ? { security: [] } : operation.auth === "operator" ? { security: [{ operatorToken: [] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(operation.body ? { requestBody: { required: !operation.body.optional, content: { "application/json": { schema: inline(operation.body.schema) } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every route, generated from the schemas the server validates with. */
export function buildOpenApiDocument(serverUrl?: string) {
  const components: Record<string, unknown> = { ErrorEnvelope: errorEnvelopeSchema };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of allOperations) (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationObject(operation, components);
  return {
    openapi: "3.1.0",
    info: { title: "Kindgi Console API", version: "1.0.0", description: "The /v1 REST API of Kindgi Console: tools, agents, runs and approvals. Errors use one envelope: `{error: {code, message, details?, requestId}}`." },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API key: `Authorization: Bearer kgi_…`." },
        operatorToken: { type: "http", scheme: "bearer", description: "KINDGI_OPERATOR_TOKEN, for operator routes." },
        sessionCookie: { type: "apiKey", in: "cookie", name: "next-auth.session-token", description: "The console's sign-in session (`__Secure-next-auth.session-token` over https). Unsafe methods must send an allowed `Origin` (403 csrf-origin-mismatch otherwise). A request with a bearer key uses the key." },
      },
    },
  };
}
