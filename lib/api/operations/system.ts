import { defineOperation } from "@/lib/api/operation";

export const healthOperation = defineOperation({
  operationId: "health",
  method: "GET",
  path: "/health",
  tag: "System",
  summary: "Liveness and the database in use (public)",
  auth: "none",
  responses: {
    200: {
      description: "The server and its database answer.",
      schema: {
        type: "object",
        required: ["status", "database"],
        properties: {
          status: { const: "ok" },
          version: { type: "string" },
          database: { type: "object", required: ["kind"], properties: { kind: { enum: ["pglite", "postgresql"] }, location: { type: "string", description: "The data folder (PGlite) or host and database (PostgreSQL), never credentials." } } },
        },
      },
    },
  },
  errors: [],
});

export const openApiOperation = defineOperation({
  operationId: "openApi",
  method: "GET",
  path: "/v1/openapi.json",
  tag: "System",
  summary: "This document (public)",
  auth: "none",
  responses: { 200: { description: "OpenAPI 3.1 document of every /v1 route.", schema: { type: "object", additionalProperties: true } } },
  errors: [],
});
