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
