import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";

const connectionParams = { connectionId: { kind: "uuid", description: "The connection's id." } } as const;

const connection = {
  type: "object",
  required: ["id", "app", "name", "owner", "userId", "permissions", "createdBy", "createdAt"],
  properties: {
    id: uuid,
    app: { type: "string", description: "The app's entry id (`google`, `github`, …)." },
    name: nullable({ type: "string" }),
    owner: { enum: ["person", "company"] },
    userId: { ...nullable(uuid), description: "The person whose connection it is; null for the company's." },
    permissions: { type: "array", items: { type: "string" } },
    createdBy: uuid,
    createdAt: dateTime,
  },
} as const;

export const createConnectionOperation = defineOperation({
  operationId: "createConnection",
  method: "POST",
  path: "/v1/connections",
  tag: "Connections",
  summary: "Link an account at another app: the caller's own (owner person) or the company's (owner company, tenant admins)",
  description:
    "`token` is the access token, stored sealed with the secrets key and never returned, logged or journaled. A tool's `needsSpec.connections` entries resolve per call: `as: \"person\"` to the run's person (who started it, or owns its trigger), `as: \"company\"` to the tenant's; the newest connection to the app holding every permission the entry lists is used. " +
    "HTTP tools with `authorization: {kind: \"connection\"}` send its token as `Authorization: Bearer …`; handlers read `context.connections[name]` ({app, permissions, owner, accessToken}). " +
    "A call whose connection is missing fails with reason `connection-missing`, one lacking a permission with `connection-permission-missing`, before anything is sent.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["app", "permissions", "token", "owner"],
      additionalProperties: false,
      properties: {
        app: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]{0,99}$", examples: ["google", "github"] },
        permissions: { type: "array", maxItems: 200, items: { type: "string", minLength: 1, maxLength: 200 }, examples: [["gmail.send"]] },
        token: { type: "string", minLength: 1, maxLength: 16_384, writeOnly: true },
        owner: { enum: ["person", "company"] },
        name: { type: "string", minLength: 1, maxLength: 200 },
      },
    },
  },
  responses: { 201: { description: "The connection (without its token).", schema: connection } },
  errors: ["bad-input", "unknown-field", "permission-denied", "secrets-unavailable"],
});

export const listConnectionsOperation = defineOperation({
  operationId: "listConnections",
  method: "GET",
  path: "/v1/connections",
  tag: "Connections",
  summary: "List the caller's connections and the company's (a tenant admin: every person's too), newest first",
  auth: "key",
  query: { ...pageQuery, app: { type: "string", minLength: 1, maxLength: 100, description: "Only connections to this app." }, owner: { enum: ["person", "company"], description: "Only the people's or only the company's." } },
  responses: { 200: { description: "A page of connections (never their tokens).", schema: pageOf(connection) } },
  errors: ["bad-input", "unknown-field"],
});

export const getConnectionOperation = defineOperation({
  operationId: "getConnection",
  method: "GET",
  path: "/v1/connections/{connectionId}",
  tag: "Connections",
  summary: "Get a connection (never its token)",
  auth: "key",
  params: connectionParams,
  responses: { 200: { description: "The connection.", schema: connection } },
  errors: ["bad-input", "not-found"],
});

export const deleteConnectionOperation = defineOperation({
  operationId: "deleteConnection",
  method: "DELETE",
  path: "/v1/connections/{connectionId}",
  tag: "Connections",
  summary: "Remove a connection: its token is no longer used by any call",
  auth: "key",
  idempotent: true,
  params: connectionParams,
  responses: { 200: { description: "The removed connection.", schema: { ...connection, required: [...connection.required, "deleted"], properties: { ...connection.properties, deleted: { const: true } } } } },
  errors: ["bad-input", "not-found", "permission-denied"],
});
