/**
 * The project's own JSON Schema (draft 2020-12) of Agent schema-version 1.3.0, written from the
 * normative seed text, plus one field beyond 1.3.0: `parallelToolCalls` (DESIGN §5).
 *
 * The schema says what a schema can say; `validate-agent.ts` adds the rules it cannot
 * (reserved parameter names, semver ranges, Liquid variables, output-schema compilation, …).
 * Descriptions are the seed's text and feed the API documentation.
 *
 * Sub-schemas are inlined (no `$ref`/`$defs`) so the schema can be embedded anywhere,
 * e.g. under `components.schemas` of the OpenAPI document, without pointer rewriting.
 */
import { CATALOG_ID_MAX_LENGTH, catalogIdSchema } from "@/lib/ids";

/** Full semver 2.0.0 version: x.y.z, optional pre-release and build metadata, no leading zeros. */
export const SEMVER_VERSION_PATTERN =
  "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)" +
  "(?:-((?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*))*))?" +
  "(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?$";

/** The most facts one retrieval (or memory search) returns: a retrieval intent's `limit` may not ask for more. */
export const MAX_RETRIEVAL_LIMIT = 100;

/** A string with at least one non-whitespace character. */
export const NON_BLANK_PATTERN = "\\S";

/** A name a Liquid template can reference as a variable: letters, digits and `_`, not starting with a digit. */
export const PARAMETER_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$";

const nonEmptyString = { type: "string", minLength: 1 } as const;

const toolRefSchema = {
  type: "object",
  description:
    "A typed tool reference: a tool id plus a semver range. Bare-string ids are not accepted — every reference names both.",
  required: ["id", "version"],
  additionalProperties: false,
  properties: {
    id: {
      type: "string",
      pattern: NON_BLANK_PATTERN,
      description: "Tool id (e.g. 'acme.verify-citation'). Must not be blank.",
    },
    version: {
      type: "string",
      pattern: NON_BLANK_PATTERN,
      description:
        "npm-style semver range: '1.2.3' pins exactly, '^1.2.3' allows compatible updates, '~1.2.3' patch updates only, '>=1.0.0 <2.0.0' an explicit range. Must not be blank; the range grammar is checked when the reference resolves at run start.",
    },
  },
} as const;

const promptParameterSchema = {
  type: "object",
  required: ["name", "type"],
  additionalProperties: false,
  properties: {
    name: {
      type: "string",
      pattern: PARAMETER_NAME_PATTERN,
      description:
        "Variable name referenced in the instructions template. Must NOT collide with reserved auto-var namespaces: today, now, agent, conversation.",
    },
    description: {
      type: "string",
      description: "UI-facing description of what the caller should supply.",
    },
    type: {
      type: "string",
      enum: ["string", "number", "boolean", "date"],
      description:
        "Value type: a string, a finite number, a boolean, or a date (YYYY-MM-DD; an ISO date-time is accepted too).",
    },
    required: {
      type: "boolean",
      default: true,
      description: "Default true. Set false to allow the parameter to be omitted.",
    },
    default: {
      description:
        "Value used when the caller omits this parameter. Must match the declared type.",
    },
  },
} as const;

const capabilitySchema = {
  type: "object",
  additionalProperties: true,
  description:
    "One capability declaration (see capability.schema.json): a resource kind and its requirements. Fields beyond these are left to the kind's router.",
  properties: {
    kind: {
      type: "string",
      minLength: 1,
      default: "llm-inference",
      description:
        "Resource kind this capability requests (e.g. llm-inference, embedding, gpu-compute). Absent means llm-inference.",
    },
    needs: {
      type: "array",
      minItems: 1,
      items: { type: "object", additionalProperties: true },
      description: "Hard requirements (features, context window, cost, region, latency, providers, models).",
    },
    prefer: {
      type: "array",
      items: { type: "object", additionalProperties: true },
      description:
        "Soft preferences: the router picks the highest-scoring model that also satisfies all 'needs'.",
    },
    budget: {
      type: "object",
      additionalProperties: true,
      description: "Per-invocation budget. Declarative: carried with the declaration but not enforced.",
    },
  },
} as const;

const retrievalIntentSchema = {
  type: "object",
  required: ["types", "scope"],
  additionalProperties: false,
  properties: {
    types: {
      type: "array",
      minItems: 1,
      items: nonEmptyString,
      description: "Fact types to retrieve.",
    },
    scope: {
      type: "string",
      enum: ["same-conversation", "same-project", "tenant"],
      description: "Which facts are eligible: this conversation's, the project's, or the tenant's.",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_RETRIEVAL_LIMIT,
      default: 10,
      description: "Cap on facts per turn, 1 to 100 (the most one retrieval returns; a larger one is refused, not capped). Default 10.",
    },
    mode: {
      type: "string",
      enum: ["keyword", "semantic", "both"],
      description: "How facts are matched against the turn.",
    },
  },
} as const;

const conversationPolicySchema = {
  type: "object",
  description: "How long conversations are and when they close or bring a person in.",
  additionalProperties: false,
  properties: {
    historyLimit: {
      type: "integer",
      minimum: 1,
      description: "How many earlier messages of the conversation are sent with a turn.",
    },
    autoCloseAfterInactiveSeconds: {
      type: "integer",
      minimum: 1,
      description: "Seconds of inactivity after which the conversation is closed.",
    },
    hitlAfterTurns: {
      type: "integer",
      minimum: 1,
      description: "Number of turns after which a person is brought into the conversation.",
    },
  },
} as const;

const turnBudgetSchema = {
  type: "object",
  description: "Limits of one turn; exceeding one ends the turn with budget-exceeded.",
  additionalProperties: false,
  properties: {
    maxSteps: {
      type: "integer",
      minimum: 1,
      default: 8,
      description: "Maximum model→tool→model iterations per turn. Default 8.",
    },
    maxCostUsd: {
      type: "number",
      minimum: 0,
      description: "Maximum USD spend per turn.",
    },
    maxWallMs: {
      type: "integer",
      minimum: 1,
      default: 120000,
      description: "Wall-clock cap in ms. Default 120000.",
    },
  },
} as const;

const outputSpecSchema = {
  type: "object",
  description:
    "A typed result (schema-version 1.2.0): the final answer must be JSON matching schema. An invalid answer is sent back to the model with the problems listed, up to maxRepairs times; then the turn fails with output-schema-violation.",
  required: ["schema"],
  additionalProperties: false,
  properties: {
    schema: {
      type: "object",
      additionalProperties: true,
      description: "JSON Schema (draft 2020-12) the final answer must match.",
    },
    name: {
      type: "string",
      minLength: 1,
      default: "output",
      description: "A name for the output, shown to the model and in errors. Default output.",
    },
    maxRepairs: {
      type: "integer",
      minimum: 0,
      default: 1,
      description: "How many times the model is asked to repair an invalid answer. Default 1.",
    },
  },
} as const;

const toolErrorsSchema = {
  type: "object",
  description:
    "What the turn does when a tool call fails (schema-version 1.3.0): the failure goes back to the model as the call's result, so it can correct the call, up to maxRetries times per turn, for the kinds in retryOn. Default: one retry, for invalid-arguments and unknown-tool. A tenant tool-errors policy can lower it.",
  additionalProperties: false,
  properties: {
    maxRetries: {
      type: "integer",
      minimum: 0,
      default: 1,
      description: "Failed calls sent back to the model per turn. Default 1.",
    },
    retryOn: {
      type: "array",
      uniqueItems: true,
      items: { type: "string", enum: ["invalid-arguments", "unknown-tool", "tool-error"] },
      default: ["invalid-arguments", "unknown-tool"],
      description:
        "Which failures are sent back: arguments that don't fit the input schema, a tool the agent doesn't have, a tool that ran and failed. Default invalid-arguments, unknown-tool.",
    },
  },
} as const;

/** JSON Schema (draft 2020-12) of an agent definition: Agent 1.3.0 plus `parallelToolCalls`. */
export const agentDefinitionSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $comment: "schema-version: 1.3.0 (+ parallelToolCalls)",
  title: "Agent",
  description:
    "An agent definition. Declarative composition of instructions + capabilities + tools + memory retrieval + guardrails + conversation policy. The same definition is durable across restarts and versioned like flows — provenance references agents by (id, version).",
  type: "object",
  required: ["id", "version", "name", "instructions", "capabilities", "tools", "retrieval", "guardrails"],
  additionalProperties: false,
  properties: {
    id: {
      ...catalogIdSchema,
      description:
        "Agent identifier, 1 to 200 characters without control characters. Convention: '<pack>.<agent>' (e.g. 'acme.citation-verifier').",
    },
    version: {
      type: "string",
      pattern: SEMVER_VERSION_PATTERN,
      maxLength: CATALOG_ID_MAX_LENGTH,
      description:
        "Semver identifying this iteration of the agent (at most 200 characters, no leading zeros). Different versions are different agents for audit purposes.",
    },
    name: {
      type: "string",
      minLength: 1,
      description: "Human-readable display name.",
    },
    description: {
      type: "string",
      description: "Prose describing what the agent does. Shown in catalog + provenance metadata.",
    },
    instructions: {
      type: "string",
      minLength: 1,
      description:
        "System-prompt rendered at the top of every turn. LiquidJS template — {{ variable }} substitution, {% if %} / {% for %} control flow, {{ value | filter }} filters. Every referenced variable must be a declared PromptParameter or a framework auto-var (today, now, agent., conversation.). Rendered with strictVariables — unresolved refs are hard errors.",
    },
    parameters: {
      type: "array",
      items: promptParameterSchema,
      description:
        "Typed parameters supplied at invoke time. UI reads this to build a configuration form; runtime validates required parameters are provided before the model call.",
    },
    capabilities: {
      type: "array",
      minItems: 1,
      items: capabilitySchema,
      description:
        "Capability declarations consumed by the router at turn time. One entry per resource kind the agent needs (e.g. LLM inference, embedding, gpu-compute). The router matches each entry by its kind (Capability.kind, default llm-inference) and its requirements; the array shape lets new kinds arrive without a schema break.",
    },
    tools: {
      type: "array",
      items: toolRefSchema,
      description:
        "Tools the agent may invoke, as { id, version } references; an empty array makes the agent chat-only. At run start each reference resolves to the highest registered version that satisfies its range; an unresolvable reference fails the turn. Schema-version 1.1.0 replaced the bare-string tool ids of 1.0.0, which defineAgent already rejected.",
    },
    retrieval: {
      type: "array",
      items: retrievalIntentSchema,
      description: "Fact-retrieval intents run before every turn to ground the model's context.",
    },
    guardrails: {
      type: "array",
      items: nonEmptyString,
      description:
        "Guardrail ids the agent is subject to. Resolved at turn start against the guardrails bound for the run (an unknown id fails the turn); evaluated on each turn's final response, before it is stored.",
    },
    preferredProvider: {
      type: "string",
      minLength: 1,
      description:
        "Preferred model provider id. Soft hint: the router prefers this provider when it satisfies the agent's capabilities and tenant policy, and otherwise routes normally.",
    },
    preferredModel: {
      type: "string",
      minLength: 1,
      description:
        "Preferred model name within the selected provider. Soft hint, combined with preferredProvider.",
    },
    conversationPolicy: conversationPolicySchema,
    budget: turnBudgetSchema,
    tags: {
      type: "array",
      items: nonEmptyString,
      description: "Free-form filter tags for the catalog. Not consumed by execution.",
    },
    output: outputSpecSchema,
    toolErrors: toolErrorsSchema,
    parallelToolCalls: {
      type: "boolean",
      default: true,
      description:
        "Whether consecutive calls to read-only tools in one model step may run concurrently (up to 8 at once). Default true. Beyond Agent 1.3.0.",
    },
  },
} as const;
