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

const readinessCheck = { type: "object", required: ["ok"], properties: { ok: { type: "boolean" }, detail: { type: "string", description: "Why the check failed (or a note)." } } };
const readinessSchema = {
  type: "object",
  required: ["status", "checks"],
  properties: {
    status: { enum: ["ready", "not-ready"] },
    checks: { type: "object", required: ["database", "migrations", "eventBus"], properties: { database: readinessCheck, migrations: readinessCheck, eventBus: readinessCheck } },
  },
};

export const readinessOperation = defineOperation({
  operationId: "readiness",
  method: "GET",
  path: "/health/ready",
  tag: "System",
  summary: "Readiness: whether this replica can serve (public)",
  description:
    "200 when the database answers a trivial query within 2 s, every migration this build knows (prisma/migrations) is applied, and the event bus listens (PostgreSQL: its LISTEN connection is up; PGlite: always); 503 otherwise, with the same body saying which check failed. For a load balancer's or an orchestrator's readiness probe; `GET /health` is the liveness probe.",
  auth: "none",
  responses: {
    200: { description: "Every check passed.", schema: readinessSchema },
    503: { description: "A check failed (the body says which).", schema: readinessSchema },
  },
  errors: [],
});

export const metricsOperation = defineOperation({
  operationId: "metrics",
  method: "GET",
  path: "/metrics",
  tag: "System",
  summary: "Prometheus metrics of this process (KINDGI_METRICS_TOKEN)",
  description:
    "The Prometheus text exposition format. Exists only when KINDGI_METRICS_TOKEN is set (404 otherwise), and answers only `Authorization: Bearer <KINDGI_METRICS_TOKEN>` (401 otherwise). Counters and histograms are this process's (each replica serves its own); the database gauges are the deployment's. docs/deployment-and-operations.md lists every metric.",
  auth: "none",
  responses: { 200: { description: "The metrics.", schema: { type: "string" }, contentType: "text/plain; version=0.0.4" } },
  errors: ["auth-missing", "auth-invalid"],
});
