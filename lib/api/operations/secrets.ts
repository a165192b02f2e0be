import { defineOperation } from "@/lib/api/operation";
import { dateTime, pageOf, pageQuery } from "@/lib/api/operations/common";

const SECRET_NAME = "^[A-Za-z0-9_.-]{1,128}$";
const secret = { type: "object", required: ["name", "version", "createdAt"], properties: { name: { type: "string" }, version: { type: "integer", minimum: 1 }, createdAt: dateTime } } as const;

export const putSecretOperation = defineOperation({
  operationId: "putSecret",
  method: "POST",
  path: "/v1/secrets",
  tag: "Secrets",
  summary: "Store a secret (a new version when the name exists; tenant admins)",
  description: "The value is encrypted at rest and never returned, logged or written to run events. Tools and providers name secrets; they are resolved per call.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["name", "value"],
      additionalProperties: false,
      properties: { name: { type: "string", pattern: SECRET_NAME, description: "Letters, digits, `_`, `.` and `-`, at most 128." }, value: { type: "string", minLength: 1, maxLength: 65536 } },
    },
  },
  responses: { 201: { description: "The name and its new version (never the value).", schema: secret } },
  errors: ["bad-input", "unknown-field", "permission-denied", "secrets-unavailable"],
});

export const listSecretsOperation = defineOperation({
  operationId: "listSecrets",
  method: "GET",
  path: "/v1/secrets",
  tag: "Secrets",
  summary: "List secrets: names and current versions only",
  auth: "key",
  query: { ...pageQuery },
  responses: { 200: { description: "A page of secrets by name.", schema: pageOf(secret) } },
  errors: ["bad-input", "unknown-field"],
});

export const deleteSecretOperation = defineOperation({
  operationId: "deleteSecret",
  method: "DELETE",
  path: "/v1/secrets/{name}",
  tag: "Secrets",
  summary: "Delete every version of a secret (tenant admins)",
  auth: "key",
  idempotent: true,
  params: { name: { kind: "secretName", description: "Secret name." } },
  responses: { 200: { description: "Deleted.", schema: { type: "object", required: ["name", "deleted"], properties: { name: { type: "string" }, deleted: { const: true } } } } },
  errors: ["bad-input", "not-found", "permission-denied"],
});
