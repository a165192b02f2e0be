import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";

const conversationParams = { conversationId: { kind: "uuid", description: "Conversation id." } } as const;

const agentRef = {
  type: "object",
  required: ["id"],
  additionalProperties: false,
  properties: {
    id: { type: "string", minLength: 1, maxLength: 200, description: "Agent id." },
    version: { type: "string", minLength: 1, maxLength: 100, description: "Exact agent version; default the latest active one." },
  },
} as const;

export const conversationSchema = {
  type: "object",
  required: ["id", "projectId", "agent", "title", "status", "closeReason", "closedAt", "historyLimit", "autoCloseAfterInactiveSeconds", "messageCount", "createdBy", "createdAt", "lastActivityAt"],
  properties: {
    id: uuid,
    projectId: uuid,
    agent: { type: "object", required: ["id", "version"], properties: { id: { type: "string" }, version: { type: "string" } }, description: "The agent version the conversation is pinned to." },
    title: nullable({ type: "string" }),
    status: { enum: ["open", "closed"] },
    closeReason: nullable({ enum: ["requested", "inactive"] }),
    closedAt: nullable(dateTime),
    historyLimit: nullable({ type: "integer" }),
    autoCloseAfterInactiveSeconds: nullable({ type: "integer" }),
    messageCount: { type: "integer" },
    createdBy: uuid,
    createdAt: dateTime,
    lastActivityAt: dateTime,
  },
} as const;

const messageSchema = {
  type: "object",
  required: ["seq", "role", "content", "runId", "createdAt"],
  properties: { seq: { type: "integer", minimum: 1 }, role: { enum: ["user", "assistant"] }, content: { type: "string" }, runId: nullable(uuid), createdAt: dateTime },
} as const;

export const openConversationOperation = defineOperation({
  operationId: "openConversation",
  method: "POST",
  path: "/v1/conversations",
  tag: "Conversations",
  summary: "Open a conversation, pinned to an agent version",
  description:
    "The conversation is pinned to the agent id and version at open (the latest active version when none is given) and copies its conversationPolicy (historyLimit, autoCloseAfterInactiveSeconds). Runs in it must use that version.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: { type: "object", required: ["agent"], additionalProperties: false, properties: { agent: agentRef, title: { type: "string", maxLength: 200 } } },
  },
  responses: { 201: { description: "The conversation.", schema: conversationSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const listConversationsOperation = defineOperation({
  operationId: "listConversations",
  method: "GET",
  path: "/v1/conversations",
  tag: "Conversations",
  summary: "List conversations, newest first",
  auth: "key",
  query: {
    ...pageQuery,
    agentId: { type: "string", minLength: 1, maxLength: 200, description: "Only this agent's conversations." },
    status: { enum: ["open", "closed"], description: "Only open or only closed conversations." },
    projectId: { ...uuid, description: "Only this project's conversations." },
  },
  responses: { 200: { description: "A page of conversations.", schema: pageOf(conversationSchema) } },
  errors: ["bad-input", "unknown-field"],
});

export const getConversationOperation = defineOperation({
  operationId: "getConversation",
  method: "GET",
  path: "/v1/conversations/{conversationId}",
  tag: "Conversations",
  summary: "Get a conversation",
  auth: "key",
  params: conversationParams,
  responses: { 200: { description: "The conversation.", schema: conversationSchema } },
  errors: ["bad-input", "not-found"],
});

export const closeConversationOperation = defineOperation({
  operationId: "closeConversation",
  method: "POST",
  path: "/v1/conversations/{conversationId}/close",
  tag: "Conversations",
  summary: "Close a conversation (closing a closed one answers it unchanged)",
  auth: "key",
  idempotent: true,
  params: conversationParams,
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } },
  responses: { 200: { description: "The closed conversation.", schema: conversationSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const listMessagesOperation = defineOperation({
  operationId: "listConversationMessages",
  method: "GET",
  path: "/v1/conversations/{conversationId}/messages",
  tag: "Conversations",
  summary: "List a conversation's messages, oldest first",
  description: "Each completed turn adds the user's message and the agent's final answer.",
  auth: "key",
  params: conversationParams,
  query: { ...pageQuery },
  responses: { 200: { description: "A page of messages.", schema: pageOf(messageSchema) } },
  errors: ["bad-input", "unknown-field", "not-found"],
});
