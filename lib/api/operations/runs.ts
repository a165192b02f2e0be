import { RUN_ORIGIN_KINDS } from "@/lib/services/run-origin";
import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";
import { RUN_KINDS, RUN_STATUSES } from "@/lib/kernel/types";

const runParams = { runId: { kind: "uuid", description: "Run id." } } as const;

const failureSchema = {
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string", description: "Stable failure code (a tool invocation's failure: tool-invocation-failed with `details.kind` and, when the invoker gives one, `details.reason` such as network-denied; tool-version-unresolvable; budget-exceeded): budget-exceeded, unresolved-tool, tool-invocation-failed, output-schema-violation, guardrail-violation, unresolved-guardrail, tool-version-unresolvable, agent-unavailable, no-provider, provider-* (a tenant provider whose key secret is gone: provider-auth-failed), instructions-render-failed, approval-rejected (a session approval was rejected), approval-expired (an approval expired and KINDGI_APPROVAL_EXPIRED=fail, or a session approval expired), approval-invalid (an approval's record no longer matches what was asked: the call was not run), internal-error." },
    message: { type: "string" },
    details: { type: "object", additionalProperties: true },
  },
} as const;

const toolVersionRef = { type: "object", required: ["id", "range", "version"], properties: { id: { type: "string" }, range: { type: "string" }, version: { type: "string" } } } as const;

export const runSchema = {
  type: "object",
  required: ["id", "kind", "status", "projectId", "agent", "tool", "conversationId", "attended", "createdBy", "origin", "toolsAllowedUnattended", "input", "resolvedTools", "provider", "usage", "costUsd", "output", "failure", "flags", "retrievedFacts", "lastSeq", "createdAt", "startedAt", "finishedAt"],
  properties: {
    id: uuid,
    kind: { enum: [...RUN_KINDS], description: "`agent-turn`: one turn of an agent (POST /v1/runs). `tool-invocation`: one call of one tool version with no agent or model (POST /v1/tools/{toolId}/versions/{version}/invoke); its output is the tool's result." },
    status: { enum: [...RUN_STATUSES] },
    projectId: uuid,
    agent: nullable({ type: "object", required: ["id", "version"], properties: { id: { type: "string" }, version: { type: "string" } }, description: "The agent version of an agent turn; null for a tool invocation." }),
    tool: nullable({ type: "object", required: ["id", "version"], properties: { id: { type: "string" }, version: { type: "string" } }, description: "The tool version a tool invocation calls; null for an agent turn." }),
    conversationId: nullable(uuid),
    attended: { type: "boolean", description: "A person started the run (a person's key); false for a service account's key." },
    createdBy: uuid,
    origin: nullable({
      type: "object",
      required: ["kind", "userId"],
      properties: {
        kind: { enum: [...RUN_ORIGIN_KINDS], description: "session: a person in the console; api-key: a person's key; service-account: a service account's key; schedule: a schedule's fire; webhook: a webhook's delivery; mcp: a `tools/call` of the MCP server (/v1/mcp), `attended` when the key is a person's." },
        userId: uuid,
        apiKeyId: nullable(uuid),
        scheduleId: { type: "string" },
        fireId: { type: "string" },
        webhookId: { type: "string" },
        deliveryId: { type: "string" },
        attended: { type: "boolean", description: "mcp only: the key is a person's (not a service account's)." },
        apiKeyName: { type: "string", description: "mcp only: the name of the key the MCP client used (as it was then)." },
      },
      description: "What started the run; null on runs recorded before origins were.",
    }),
    toolsAllowedUnattended: { type: "array", items: { type: "string" }, description: "Tools the trigger of an unattended run lets run without asking." },
    input: {
      anyOf: [
        { type: "object", required: ["userMessage", "parameters"], properties: { userMessage: { type: "string" }, parameters: { type: "object", additionalProperties: true, description: "Every declared parameter: the value given, else its default, else null." } }, description: "An agent turn's input." },
        { type: "object", required: ["arguments"], properties: { arguments: { type: "object", additionalProperties: true, description: "The arguments, with the input schema's defaults filled." } }, description: "A tool invocation's input." },
      ],
    },
    resolvedTools: nullable({ type: "array", items: toolVersionRef, description: "Tool versions resolved at turn start; a resumed run keeps them." }),
    provider: nullable({ type: "object", required: ["id", "model"], properties: { id: { type: "string" }, model: { type: "string" } } }),
    usage: { type: "object", required: ["inputTokens", "outputTokens", "modelCalls", "toolCalls"], properties: { inputTokens: { type: "integer" }, outputTokens: { type: "integer" }, modelCalls: { type: "integer" }, toolCalls: { type: "integer" } } },
    costUsd: { type: "number" },
    output: { description: "The final answer: a string, or the JSON value matching the agent's output schema; for a tool invocation, the JSON value the tool returned (checked against its output schema). null until completed." },
    failure: nullable(failureSchema),
    flags: { type: "array", items: { type: "object", additionalProperties: true }, description: "Findings of guardrails with action flag." },
    retrievedFacts: { type: "array", items: { type: "object", additionalProperties: true }, description: "Facts retrieval gave the turn." },
    lastSeq: { type: "integer", description: "The last journal sequence number." },
    createdAt: dateTime,
    startedAt: nullable(dateTime),
    finishedAt: nullable(dateTime),
  },
} as const;

const dryRunSchema = {
  type: "object",
  required: ["dryRun", "agent", "projectId", "conversationId", "parameters", "instructions", "resolvedTools", "unresolvedTools", "guardrails", "provider", "routingProblem"],
  properties: {
    dryRun: { const: true },
    agent: { type: "object", properties: { id: { type: "string" }, version: { type: "string" } } },
    projectId: uuid,
    conversationId: nullable(uuid),
    parameters: { type: "object", additionalProperties: true },
    instructions: { type: "string", description: "The rendered instructions." },
    resolvedTools: { type: "array", items: toolVersionRef },
    unresolvedTools: { type: "array", items: { type: "object", additionalProperties: true } },
    guardrails: { type: "object", properties: { resolved: { type: "array", items: { type: "object", additionalProperties: true } }, missing: { type: "array", items: { type: "string" } } } },
    provider: nullable({ type: "object", properties: { id: { type: "string" }, model: { type: "string" }, reason: { type: "string" } } }),
    routingProblem: nullable({ type: "string" }),
  },
} as const;

const eventSchema = {
  type: "object",
  required: ["seq", "type", "data", "createdAt"],
  properties: {
    seq: { type: "integer", minimum: 1 },
    type: { enum: ["run-created", "run-resumed", "turn-started", "invocation-started", "model-called", "tool-call-started", "tool-logged", "tool-call-completed", "output-repair-requested", "approval-requested", "approval-decided", "wait-started", "wait-completed", "guardrail-flagged", "run-completed", "run-failed", "run-cancelled"] },
    data: { type: "object", additionalProperties: true },
    createdAt: dateTime,
  },
} as const;

const modelDeltaSchema = {
  type: "object",
  required: ["callIndex", "attempt"],
  description: "A `model-delta` frame (no `id:` line; never journaled): a model call's words as they are written.",
  properties: {
    callIndex: { type: "integer", minimum: 0, description: "The model call's index in the turn: the `index` of the `model-called` event that will journal its answer." },
    attempt: { type: "integer", minimum: 1, description: "The provider's attempt; a larger one than before starts the call over (drop the earlier attempt's text)." },
    text: { type: "string", description: "Text to append to the call's answer so far." },
    toolCalls: {
      type: "array",
      items: {
        type: "object",
        required: ["index", "argumentsDelta"],
        properties: { index: { type: "integer", minimum: 0, description: "The tool call's position in the answer." }, id: { type: "string" }, name: { type: "string", description: "The tool id (on the call's first piece)." }, argumentsDelta: { type: "string", description: "JSON text to append to the call's arguments so far." } },
      },
    },
    snapshot: { const: true, description: "Everything of the call's attempt so far (sent first to a client that joins mid-call): it replaces what the client had for that call." },
  },
} as const;

/** A run stream's frames: journaled events (`id: <runId>:<seq>`) and model deltas (no id). */
const streamFrameSchema = { $defs: { RunEvent: eventSchema, ModelDelta: modelDeltaSchema }, anyOf: [{ $ref: "#/$defs/RunEvent" }, { $ref: "#/$defs/ModelDelta" }] } as const;

export const createRunOperation = defineOperation({
  operationId: "createRun",
  method: "POST",
  path: "/v1/runs",
  tag: "Runs",
  summary: "Run one turn of an agent",
  description:
    "With `wait` (default true) the answer is 201 once the run completes, fails, is cancelled or suspends; with `wait: false` it is 202 at once (follow it with GET, the journal or the stream). `dryRun: true` checks and resolves everything a turn would use (agent version, parameters, tools, guardrails, model route, rendered instructions) and answers 200 without running or storing anything. In a conversation the run uses the version the conversation is pinned to.\n\nWith `Accept: text/event-stream` the run starts (as with `wait: false`) and the same response streams it: status 202, `Content-Type: text/event-stream`, `Location: /v1/runs/{runId}`, and the frames of `GET /v1/runs/{runId}/stream` from the first event (`run-created`, whose `id:` line names the run) to the terminal one, with the model's words as `model-delta` frames in between. A problem found before the run starts is the usual JSON error. A repeat with the same `Idempotency-Key` answers the stored 202 JSON run (follow it with the stream); a dry run ignores the header.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["agent", "input"],
      additionalProperties: false,
      properties: {
        agent: { type: "object", required: ["id"], additionalProperties: false, properties: { id: { type: "string", minLength: 1, maxLength: 200 }, version: { type: "string", minLength: 1, maxLength: 100 } } },
        input: {
          type: "object",
          required: ["userMessage"],
          additionalProperties: false,
          properties: {
            userMessage: { type: "string", minLength: 1, maxLength: 100000 },
            conversationId: { ...uuid, description: "Continue this conversation." },
            parameters: { type: "object", additionalProperties: true, description: "Values of the agent's declared parameters." },
          },
        },
        options: { type: "object", additionalProperties: false, properties: { wait: { type: "boolean", default: true }, dryRun: { type: "boolean", default: false } } },
      },
    },
  },
  responses: {
    200: { description: "A dry run: what the turn would use.", schema: dryRunSchema },
    201: { description: "The settled run.", schema: runSchema },
    202: { description: "The run, accepted and running; with `Accept: text/event-stream`, its event stream (journaled events and `model-delta` frames, as `GET /v1/runs/{runId}/stream` sends them).", schema: runSchema, alsoAs: { "text/event-stream": streamFrameSchema } },
  },
  errors: ["bad-input", "unknown-field", "validation-failed", "not-found", "permission-denied", "agent-version-mismatch", "conversation-closed"],
});

export const listRunsOperation = defineOperation({
  operationId: "listRuns",
  method: "GET",
  path: "/v1/runs",
  tag: "Runs",
  summary: "List runs, newest first",
  auth: "key",
  query: {
    ...pageQuery,
    status: { enum: [...RUN_STATUSES], description: "Only runs in this status." },
    kind: { enum: [...RUN_KINDS], description: "Only agent turns or only tool invocations." },
    agentId: { type: "string", minLength: 1, maxLength: 200, description: "Only this agent's runs." },
    toolId: { type: "string", minLength: 1, maxLength: 200, description: "Only invocations of this tool." },
    conversationId: { ...uuid, description: "Only this conversation's runs." },
    projectId: { ...uuid, description: "Only this project's runs." },
    origin: { enum: [...RUN_ORIGIN_KINDS], description: "Only runs started this way (origin.kind): session, api-key, service-account, schedule, webhook, mcp." },
  },
  responses: { 200: { description: "A page of runs.", schema: pageOf(runSchema) } },
  errors: ["bad-input", "unknown-field"],
});

export const getRunOperation = defineOperation({
  operationId: "getRun",
  method: "GET",
  path: "/v1/runs/{runId}",
  tag: "Runs",
  summary: "Get a run: status, versions, usage, cost, output or failure",
  auth: "key",
  params: runParams,
  responses: { 200: { description: "The run.", schema: runSchema } },
  errors: ["bad-input", "not-found"],
});

export const cancelRunOperation = defineOperation({
  operationId: "cancelRun",
  method: "POST",
  path: "/v1/runs/{runId}/cancel",
  tag: "Runs",
  summary: "Cancel a run that has not finished",
  description: "In-flight model and tool calls are aborted. A run that already completed, failed or was cancelled → 409 run-already-terminal.",
  auth: "key",
  idempotent: true,
  params: runParams,
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } },
  responses: { 200: { description: "The cancelled run.", schema: runSchema } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied", "run-already-terminal"],
});

export const getRunJournalOperation = defineOperation({
  operationId: "getRunJournal",
  method: "GET",
  path: "/v1/runs/{runId}/journal",
  tag: "Runs",
  summary: "Read a run's journal: the numbered events after `since`",
  auth: "key",
  params: runParams,
  query: {
    since: { type: "integer", minimum: 0, maximum: 1000000000, default: 0, description: "Return events with a sequence number above this." },
    limit: { type: "integer", minimum: 1, maximum: 1000, default: 100, description: "Events per page, 1 to 1000 (default 100)." },
  },
  responses: {
    200: {
      description: "Events in order; with `hasMore`, ask again with `since` = the last `seq`.",
      schema: { type: "object", required: ["data", "hasMore", "lastSeq"], properties: { data: { type: "array", items: eventSchema }, hasMore: { type: "boolean" }, lastSeq: { type: "integer" } } },
    },
  },
  errors: ["bad-input", "unknown-field", "not-found"],
});

export const streamRunOperation = defineOperation({
  operationId: "streamRun",
  method: "GET",
  path: "/v1/runs/{runId}/stream",
  tag: "Runs",
  summary: "Stream a run's journal as server-sent events",
  description:
    "`text/event-stream`: each journaled event is `id: <runId>:<seq>`, `event: <type>`, `data: <event JSON>`. Resumable: send `Last-Event-ID` (or `since`) to get only later events. The stream closes after the terminal event (run-completed, run-failed, run-cancelled).\n\nBetween the journaled events, a model call's words arrive as they are written, as ephemeral frames `event: model-delta` with **no `id:` line** (so `Last-Event-ID` counts journaled events only; deltas are never journaled and never replayed) and `data: {callIndex, attempt, text?, toolCalls?: [{index, id?, name?, argumentsDelta}], snapshot?}`. `callIndex` is the model call's index in the turn (the `index` of the `model-called` event that journals its answer); `text` and `argumentsDelta` append to what came before for that call; `name` is the tool id. A client joining while a model call is in flight first gets one delta with `snapshot: true` holding the text and arguments so far (it replaces what the client had for that call). A delta with a larger `attempt` than before means the provider started the call over (its stream broke): drop the earlier attempt's text. The journaled `model-called` event is the call's answer; deltas of a call already journaled are not sent. Every replica streams the deltas of a run executing on any other.",
  auth: "key",
  params: runParams,
  query: { since: { type: "integer", minimum: 0, maximum: 1000000000, description: "Start after this sequence number (Last-Event-ID wins when both are given)." } },
  responses: { 200: { description: "The event stream; each `data` is a journal event (`event: <type>`, with an `id:`) or a model delta (`event: model-delta`, without one).", schema: streamFrameSchema, contentType: "text/event-stream" } },
  errors: ["bad-input", "unknown-field", "not-found"],
});
