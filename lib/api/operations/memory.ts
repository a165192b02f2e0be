import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";
import { FACT_TYPE_PATTERN, MAX_FACT_CONTENT_LENGTH, MAX_FACT_TYPE_LENGTH } from "@/lib/services/memory";

const factType = { type: "string", minLength: 1, maxLength: MAX_FACT_TYPE_LENGTH, pattern: FACT_TYPE_PATTERN, description: "A lowercase slug grouping similar facts: `note`, `preference`, `crm.contact`." } as const;

const fact = {
  type: "object",
  required: ["id", "type", "content", "projectId", "conversationId", "source", "runId", "createdBy", "createdAt"],
  properties: {
    id: uuid,
    type: { type: "string" },
    content: { type: "string" },
    projectId: uuid,
    conversationId: { ...nullable(uuid), description: "The conversation the fact belongs to, if any." },
    source: { enum: ["api", "tool"], description: "`api`: stored with this API; `tool`: stored by the `remember` tool in a run." },
    runId: { ...nullable(uuid), description: "The run whose `remember` call stored the fact." },
    createdBy: uuid,
    createdAt: dateTime,
  },
} as const;

const factParams = { factId: { kind: "uuid", description: "Fact id." } } as const;

export const createFactOperation = defineOperation({
  operationId: "createFact",
  method: "POST",
  path: "/v1/memory/facts",
  tag: "Memory",
  summary: "Store a fact in the memory store",
  description:
    "Agents retrieve facts before each turn (their retrieval intents) and with the `recall` tool, matching them by keyword (PostgreSQL full-text search, English stemming), by meaning (the fact's vector from the project's embedding model, made in the background after it is stored), or both. With `conversationId` the fact belongs to that conversation and its project (`projectId` may be left out); otherwise `projectId` is required.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["type", "content"],
      additionalProperties: false,
      properties: {
        type: factType,
        content: { type: "string", minLength: 1, maxLength: MAX_FACT_CONTENT_LENGTH, pattern: "\\S", description: "The fact, one self-contained statement (not only white space)." },
        projectId: { ...uuid, description: "The project the fact belongs to (required without `conversationId`; with it, must be the conversation's project)." },
        conversationId: { ...uuid, description: "The conversation the fact belongs to." },
      },
    },
  },
  responses: { 201: { description: "The stored fact.", schema: fact } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const listFactsOperation = defineOperation({
  operationId: "listFacts",
  method: "GET",
  path: "/v1/memory/facts",
  tag: "Memory",
  summary: "List facts, newest first; with `q`, the facts matching its keywords, best match first",
  auth: "key",
  query: {
    ...pageQuery,
    projectId: { ...uuid, description: "Only this project's facts." },
    conversationId: { ...uuid, description: "Only this conversation's facts." },
    type: { ...factType, description: "Only facts of this type." },
    q: {
      type: "string",
      minLength: 1,
      maxLength: 1000,
      description: "Keyword search, the one agents retrieve with: facts sharing at least one word (after English stemming, stop words ignored) with `q`, ordered by relevance, then newest.",
    },
  },
  responses: { 200: { description: "A page of facts.", schema: pageOf(fact) } },
  errors: ["bad-input", "unknown-field"],
});

export const getFactOperation = defineOperation({
  operationId: "getFact",
  method: "GET",
  path: "/v1/memory/facts/{factId}",
  tag: "Memory",
  summary: "Get a fact",
  auth: "key",
  params: factParams,
  description:
    "The fact, with `embedding`: whether it is embedded with its project's embedding model (the first embedding provider configured for the project, else `dev-embed`) — `{status: \"embedded\", providerId, model, dimensions, embeddedAt}` — or still waits for it: `{status: \"pending\", providerId, model, attempts, lastError, nextAttemptAt}` (`attempts` failed so far; a fact is embedded in the background and tried again after a failure).",
  responses: {
    200: {
      description: "The fact.",
      schema: {
        ...fact,
        required: [...fact.required, "embedding"],
        properties: {
          ...fact.properties,
          embedding: {
            type: "object",
            required: ["status", "providerId", "model"],
            properties: {
              status: { enum: ["embedded", "pending"] },
              providerId: { type: "string" },
              model: { type: "string" },
              dimensions: { type: "integer" },
              embeddedAt: dateTime,
              attempts: { type: "integer" },
              lastError: { type: ["string", "null"] },
              nextAttemptAt: { type: ["string", "null"], format: "date-time" },
            },
          },
        },
      },
    },
  },
  errors: ["bad-input", "not-found"],
});

export const deleteFactOperation = defineOperation({
  operationId: "deleteFact",
  method: "DELETE",
  path: "/v1/memory/facts/{factId}",
  tag: "Memory",
  summary: "Forget a fact (deleted for good)",
  auth: "key",
  idempotent: true,
  params: factParams,
  responses: { 200: { description: "Deleted.", schema: { type: "object", required: ["id", "deleted"], properties: { id: uuid, deleted: { const: true } } } } },
  errors: ["bad-input", "not-found", "permission-denied"],
});
