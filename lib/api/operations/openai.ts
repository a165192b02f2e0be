import { defineOperation } from "@/lib/api/operation";

/** A model as OpenAI lists it: an agent of the project. */
const model = {
  type: "object",
  required: ["id", "object", "created", "owned_by"],
  properties: {
    id: { type: "string", description: "The agent id (`<id>@<version or range>` pins a version)." },
    object: { const: "model" },
    created: { type: "integer", description: "Unix seconds: when the version was registered." },
    owned_by: { const: "kindgi" },
  },
} as const;

const projectHeader =
  "The project: the key's when it is narrowed to one, else the `OpenAI-Project` header (a project id, as the OpenAI SDKs send their `project` option), else the tenant's default project.";

export const listModelsOperation = defineOperation({
  operationId: "listModels",
  method: "GET",
  path: "/v1/models",
  tag: "OpenAI-compatible",
  summary: "The project's agents as OpenAI models",
  description: `OpenAI's list shape \`{object: "list", data}\`: the agents of the project (latest active version of each) by id, at most 1000. ${projectHeader} Errors carry OpenAI's fields (\`type\`, \`param\`) besides the API's.`,
  auth: "key",
  errorShape: "openai",
  responses: { 200: { description: "The models.", schema: { type: "object", required: ["object", "data"], properties: { object: { const: "list" }, data: { type: "array", items: model } } } } },
  errors: ["bad-input", "permission-denied"],
});

export const getModelOperation = defineOperation({
  operationId: "getModel",
  method: "GET",
  path: "/v1/models/{model}",
  tag: "OpenAI-compatible",
  summary: "One agent as an OpenAI model",
  description: `\`model\` is an agent id, or \`<id>@<version or semver range>\` (the highest active version in it); 404 model-not-found when the project has none. ${projectHeader}`,
  auth: "key",
  errorShape: "openai",
  params: { model: { kind: "catalogId", description: "An agent id, optionally `@<version or range>`." } },
  responses: { 200: { description: "The model.", schema: model } },
  errors: ["bad-input", "model-not-found"],
});

/** OpenAI's generation parameters: accepted, not applied (the agent's own settings govern its model calls). */
const ignoredParameters = Object.fromEntries(
  ["temperature", "top_p", "max_tokens", "max_completion_tokens", "presence_penalty", "frequency_penalty", "stop", "seed", "metadata", "store", "parallel_tool_calls", "response_format", "logprobs", "top_logprobs", "logit_bias", "reasoning_effort", "service_tier", "modalities", "prediction", "audio", "web_search_options", "verbosity", "prompt_cache_key", "safety_identifier"].map((name) => [name, { description: "Accepted and not applied: the agent's own settings govern its model calls." }]),
);

const chatMessage = {
  type: "object",
  required: ["role"],
  properties: {
    role: { type: "string", description: "user or assistant; system and developer messages are accepted and not passed on (the agent's instructions are its system prompt); tool and function messages are refused." },
    content: { description: "A string, or text parts `[{type: \"text\", text}]`." },
    name: { type: "string" },
  },
} as const;

const usage = { type: "object", required: ["prompt_tokens", "completion_tokens", "total_tokens"], properties: { prompt_tokens: { type: "integer" }, completion_tokens: { type: "integer" }, total_tokens: { type: "integer" } } } as const;

export const createChatCompletionOperation = defineOperation({
  operationId: "createChatCompletion",
  method: "POST",
  path: "/v1/chat/completions",
  tag: "OpenAI-compatible",
  summary: "Run an agent's turn as an OpenAI chat completion",
  description:
    `\`model\` names an agent (\`<id>\` or \`<id>@<version or range>\`, see GET /v1/models). The last message (the user's) is the turn's input; the earlier user and assistant messages are the history of a conversation opened for the turn. The answer is a \`chat.completion\` whose \`id\` is \`chatcmpl-<runId>\` (the run is also in the \`X-Kindgi-Run-Id\` header), with the turn's answer (a typed answer as its JSON) and the run's token usage. ` +
    "The agent's tools run on this server and are never sent as `tool_calls`: a request with `tools`, `functions`, `tool_choice` or `function_call` is refused (400 validation-failed), as is `n` other than 1. A call that waits for a person's approval ends the completion with an assistant message naming the call and the approval's console link (`<origin>/approvals/{id}`); the run goes on once it is decided. A run that fails is 422 run-failed with its failure. " +
    "With `stream: true`: `text/event-stream` of `chat.completion.chunk`s — the model's words as they are written, a last chunk with `finish_reason: \"stop\"`, one with `usage` (and no choices) when `stream_options.include_usage`, then `data: [DONE]`; a run that fails mid-stream sends `data: {error}`. " +
    `${projectHeader} Errors carry OpenAI's fields (\`type\`, \`param\`) besides the API's \`code\` and \`message\`.`,
  auth: "key",
  errorShape: "openai",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["model", "messages"],
      properties: {
        model: { type: "string", minLength: 1, maxLength: 300 },
        messages: { type: "array", minItems: 1, maxItems: 1000, items: chatMessage },
        stream: { type: ["boolean", "null"] },
        stream_options: { type: ["object", "null"], properties: { include_usage: { type: "boolean" } } },
        user: { type: "string", maxLength: 256, description: "Accepted; the run's person is the key's." },
        n: { type: ["integer", "null"], description: "1 (or absent)." },
        tools: { description: "Refused: the agent's own tools run on this server." },
        functions: { description: "Refused." },
        tool_choice: { description: "Refused." },
        function_call: { description: "Refused." },
        ...ignoredParameters,
      },
    },
  },
  responses: {
    200: {
      description: "The completion (or, with `stream: true`, its chunks).",
      schema: {
        type: "object",
        required: ["id", "object", "created", "model", "choices"],
        properties: {
          id: { type: "string" },
          object: { enum: ["chat.completion", "chat.completion.chunk"] },
          created: { type: "integer" },
          model: { type: "string" },
          choices: { type: "array", items: { type: "object", additionalProperties: true } },
          usage,
        },
      },
      alsoAs: { "text/event-stream": { type: "object", additionalProperties: true, description: "`data: <chat.completion.chunk JSON>` frames, then `data: [DONE]`." } },
    },
  },
  errors: ["bad-input", "unknown-field", "validation-failed", "model-not-found", "permission-denied", "run-failed", "conversation-closed"],
});

const responseObject = {
  type: "object",
  required: ["id", "object", "created_at", "status", "model", "output", "usage", "metadata"],
  properties: {
    id: { type: "string", description: "`resp_<runId>`, or `resp_<runId>_<seq>` for the response that continues the run after a wait for approval." },
    object: { const: "response" },
    created_at: { type: "integer" },
    status: { enum: ["queued", "in_progress", "completed", "failed", "cancelled", "incomplete"] },
    model: { type: "string" },
    output: { type: "array", items: { type: "object", additionalProperties: true, description: "`message` (the model's words), `mcp_call` (a tool call on this server), `mcp_approval_request` (a call waiting for a person)." } },
    output_text: { type: "string" },
    previous_response_id: { type: ["string", "null"] },
    conversation: { type: "object", properties: { id: { type: "string" } } },
    error: { type: ["object", "null"], additionalProperties: true },
    usage: { type: "object", additionalProperties: true },
    metadata: { type: "object", properties: { runId: { type: "string" } } },
  },
  additionalProperties: true,
} as const;

export const createResponseOperation = defineOperation({
  operationId: "createResponse",
  method: "POST",
  path: "/v1/responses",
  tag: "OpenAI-compatible",
  summary: "Run an agent's turn as an OpenAI Response",
  description:
    "`model` names an agent (see GET /v1/models); `input` is the user's message (a string) or message items whose last is the user's (earlier ones become the history of the conversation the response opens). Every response runs in a conversation: `previous_response_id` continues the previous response's (then `input` holds only the new message), `conversation` (an id or `{id}`) names one. `parameters` (an extension) are the agent's parameters. " +
    "The answer is a Response (the run's id in `metadata.runId` and the `X-Kindgi-Run-Id` header): each model call's words are a `message` item, each tool call an `mcp_call` item (`server_label: \"kindgi\"`, `name` the tool id, `arguments`, `output` or `error`), the response's token usage. A run's first response is `resp_<runId>`. " +
    "A call that waits for a person's approval ends the response (`status: completed`) with an `mcp_approval_request` item (`id` the approval's id, `name`, `arguments`). To decide it, send `previous_response_id` and `input: [{type: \"mcp_approval_response\", approval_request_id, approve, reason?}]` (a person's key: a service account's is 403); extensions: `arguments` (with `approve: true`) approves edited arguments, validated against the tool's input schema as in the inbox, and `remember` (`true` or `{condition}`) makes a grant. That request's answer is the run's next response, `resp_<runId>_<seq>`: the rest of the turn up to its end or its next wait, streamed with `stream: true`. The inbox (or POST /v1/approvals/{id}/complete) can decide the same approval: whichever decides first wins, and a later answer through this route is not an error — its response shows what became of the call. " +
    "`background: true` answers at once (`queued` or `in_progress`): poll GET /v1/responses/{id}, cancel with POST /v1/responses/{id}/cancel. `store` defaults to true; `store: false` keeps the response from being served again (GET, cancel and `previous_response_id` answer 404) — its run is still kept, as every run is, and `background` needs `store`. A run paused on a wait token (not a person) is `in_progress` until its answer comes. " +
    "With `stream: true`: `text/event-stream` of OpenAI's events — `response.created`, `response.in_progress`, `response.output_item.added`, `response.content_part.added`, `response.output_text.delta` (the model's words as they are written), `response.output_text.done`, `response.mcp_call_arguments.done`, `response.mcp_call.in_progress` / `.completed` / `.failed`, `response.output_item.done`, then `response.completed` (or `response.failed`) with the whole response; the text deltas put together are its `output_text`. `instructions` and generation parameters are accepted and not applied (the agent's own govern); `tools` are refused. Errors carry OpenAI's fields (`param` names the input item: `input.0.arguments.city`).",
  auth: "key",
  errorShape: "openai",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["model", "input"],
      properties: {
        model: { type: "string", minLength: 1, maxLength: 300 },
        input: { description: "A string; message items `{role, content}` (content a string or text parts); or, with `previous_response_id`, `mcp_approval_response` items `{approval_request_id, approve, reason?, arguments?, remember?}`." },
        stream: { type: ["boolean", "null"] },
        previous_response_id: { type: ["string", "null"], maxLength: 200 },
        conversation: { description: "A conversation id, or `{id}`." },
        background: { type: ["boolean", "null"], description: "Start the run and answer at once; poll GET /v1/responses/{id}." },
        store: { type: ["boolean", "null"], description: "Default true; false: the response is not served again." },
        parameters: { type: ["object", "null"], additionalProperties: true, description: "Extension: the agent's parameters (as POST /v1/runs takes them)." },
        tools: { description: "Refused (an empty list is accepted)." },
        tool_choice: { description: "Refused." },
        ...ignoredParameters,
        instructions: { description: "Accepted and not applied: the agent's instructions are its system prompt." },
        user: { type: "string", maxLength: 256 },
        include: { description: "Accepted and not applied." },
        truncation: { description: "Accepted and not applied." },
        max_output_tokens: { description: "Accepted and not applied." },
        reasoning: { description: "Accepted and not applied." },
        text: { description: "Accepted and not applied." },
        stream_options: { description: "Accepted and not applied." },
      },
    },
  },
  responses: { 200: { description: "The response (or, with `stream: true`, its events).", schema: responseObject, alsoAs: { "text/event-stream": { type: "object", additionalProperties: true, description: "`event: <type>` / `data: <event JSON>` frames." } } } },
  errors: ["bad-input", "unknown-field", "validation-failed", "model-not-found", "not-found", "permission-denied", "agent-version-mismatch", "conversation-closed"],
});

export const cancelResponseOperation = defineOperation({
  operationId: "cancelResponse",
  method: "POST",
  path: "/v1/responses/{responseId}/cancel",
  tag: "OpenAI-compatible",
  summary: "Cancel a background response",
  description:
    "Cancels the run of a response created with `background: true` (its open approvals are withdrawn) and answers the response, `status: cancelled`. A response already finished is answered as it is. A response not created in the background is 400 (cancel its run with POST /v1/runs/{runId}/cancel).",
  auth: "key",
  errorShape: "openai",
  idempotent: true,
  params: { responseId: { kind: "catalogId", description: "`resp_<runId>` (or a later response of the run)." } },
  responses: { 200: { description: "The response.", schema: responseObject } },
  errors: ["bad-input", "not-found", "permission-denied"],
});

export const getResponseOperation = defineOperation({
  operationId: "getResponse",
  method: "GET",
  path: "/v1/responses/{responseId}",
  tag: "OpenAI-compatible",
  summary: "A stored response",
  description: "The response as it stands now, rebuilt from its run's journal: `queued` or `in_progress` while its run works, then `completed` (possibly ended with an `mcp_approval_request`), `failed` or `cancelled`. A response created with `store: false` is 404.",
  auth: "key",
  errorShape: "openai",
  params: { responseId: { kind: "catalogId", description: "`resp_<runId>`, or `resp_<runId>_<seq>` for a later response of the run." } },
  responses: { 200: { description: "The response.", schema: responseObject } },
  errors: ["bad-input", "not-found"],
});
