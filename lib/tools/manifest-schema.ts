/**
 * The project's own JSON Schema (Draft 2020-12) of Tool 1.3.0 and the TypeScript types it describes.
 *
 * Normative source: the Tool schema 1.3.0 seed and the `POST /v1/tools` seed (min/max constraints).
 * Discriminated unions use Ajv's `discriminator` keyword (Ajv option `discriminator: true`), so a wrong
 * `kind` gives one error at `…/kind` instead of a `oneOf` cascade.
 */

import { catalogIdSchema } from "@/lib/ids";

/** Canonical URI of the Draft 2020-12 meta-schema. */
const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** The effect kinds a tool may declare: a closed list. */
export const EFFECT_KINDS = [
  "reads",
  "writes",
  "deletes",
  "network",
  "spawns-run",
  "emits-event",
  "external-side-effect",
  "sensitive-data-egress",
] as const;

export type EffectKind = (typeof EFFECT_KINDS)[number];

/** A named context slot the runtime injects via `ToolContext`. */
export type Need = { name: string; optional?: boolean };

/** A declared side-effect. */
export type Effect = { kind: EffectKind; resource?: string; notes?: string };

/** Network egress policy, discriminated on `kind`. */
export type NetworkPolicy = { kind: "none" | "unrestricted" } | { kind: "allowlist"; hosts: string[] };

/** An account at another app the tool acts with. */
export type ConnectionNeed = { app: string; permissions: string[]; as: "person" | "company" };

/** Typed discriminated needs. */
export type NeedsSpec = {
  env?: Record<string, Record<string, unknown>>;
  secrets?: Record<string, Record<string, unknown>>;
  config?: Record<string, Record<string, unknown>>;
  capabilities?: string[];
  bindings?: string[];
  connections?: Record<string, ConnectionNeed>;
};

/** Handler-artifact pointer, discriminated on `kind`. */
export type CodeArtifactRef =
  | {
      kind: "oci";
      imageRef: string;
      modulePath: string;
      artifactVersion: string;
      /**
       * Not part of a document (the schema refuses it there): the manifest digest the imageRef resolved to at
       * registration, which the runtime adds to a loaded manifest so the call runs those bytes.
       */
      digest?: string;
    }
  | { kind: "filesystem"; modulePath: string };

/** A reference to a stored secret, exposed to the handler under `envName`. */
export type ToolSecretRef = { envName: string; name: string };

/** How an HTTP tool authorizes its request. */
export type HttpAuthSpec =
  | { kind: "bearer"; secretRef: ToolSecretRef }
  | { kind: "header"; headerName: string; secretRef: ToolSecretRef }
  | { kind: "connection"; connection: string };

/** How an HTTP tool builds its request body. */
export type HttpRequestBodySpec = { kind: "json-input" } | { kind: "input-passthrough" } | { kind: "text"; template: string };

/** Declarative HTTP-invocation spec (`spec.kind: "http"`). */
export type HttpToolSpec = {
  kind: "http";
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  urlTemplate: string;
  headers?: Array<{ name: string; value: string }>;
  authorization?: HttpAuthSpec;
  requestBody?: HttpRequestBodySpec;
  timeoutMs?: number;
  parseJson?: boolean;
  successStatus?: { min: number; max: number };
};

/** A Tool 1.3.0 manifest: the tool minus its runtime handler. */
export type ToolManifest = {
  id: string;
  description: string;
  version: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  needs?: Need[];
  effects?: Effect[];
  transport?: "auto" | "native" | "mcp";
  mcpEndpoint?: string;
  metadata?: Record<string, unknown>;
  sandbox?: "none" | "context-isolated" | "strict";
  mutating?: boolean;
  needsApprovalWhenUnattended?: boolean;
  pauses?: boolean;
  resultIsOutsideData?: boolean;
  limits?: { memMB: number; cpuMs: number };
  network?: NetworkPolicy;
  needsSpec?: NeedsSpec;
  codeArtifactRef?: CodeArtifactRef;
  spec?: HttpToolSpec;
};

/**
 * A tool version: MAJOR.MINOR.PATCH (the seed's pattern) without leading zeros, so that every version that registers
 * is a semver version the registry can order (`01.0.0` is not one).
 */
export const TOOL_VERSION_PATTERN = "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)$";

/** The longest `spec.timeoutMs`: what a timer can hold (2^31 - 1 ms, about 24.8 days); a larger delay fires at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

const nonEmptyString = { type: "string", minLength: 1 } as const;
const stringList = { type: "array", items: nonEmptyString } as const;
/** A free-form JSON object. `additionalProperties: true` says so outright: client generators read a bare
 * `{type: "object"}` as an object with no properties at all. */
const freeFormObject = { type: "object", additionalProperties: true } as const;
const objectMap = { type: "object", additionalProperties: freeFormObject } as const;

/** An object with exactly `properties`, all of `required` present. */
function closedObject(properties: Record<string, unknown>, required: string[] = [], description?: string) {
  return {
    type: "object",
    ...(description === undefined ? {} : { description }),
    additionalProperties: false,
    required,
    properties,
  };
}

/** A union of closed objects discriminated on their `kind` property. */
function discriminated(branches: object[], description?: string) {
  return {
    type: "object",
    ...(description === undefined ? {} : { description }),
    discriminator: { propertyName: "kind" },
    oneOf: branches,
  };
}

const ioSchemaDescription = (which: string) =>
  `JSON Schema for the tool ${which}. MUST validate under Draft 2020-12, except on an MCP server's tool ` +
  '(`transport: "mcp"`), whose schemas are in the dialect their `$schema` declares: draft-06, draft-07, 2019-09 or 2020-12.';

const $defs = {
  Need: closedObject(
    {
      name: {
        ...nonEmptyString,
        description: "The named context slot (e.g. 'tenant', 'db', 'run', 'provenance', 'memory:facts', 'blob').",
      },
      optional: { type: "boolean", default: false },
    },
    ["name"],
  ),
  Effect: closedObject(
    {
      kind: { type: "string", enum: EFFECT_KINDS },
      resource: {
        type: "string",
        description:
          "Resource identifier (e.g. 'memory:facts', 'blob:*', 'external:api.example.com'). Used by the policy engine to authorize the effect.",
      },
      notes: { type: "string" },
    },
    ["kind"],
  ),
  ToolSecretRef: closedObject({ envName: nonEmptyString, name: nonEmptyString }, ["envName", "name"]),
  HttpHeaderSpec: closedObject({ name: nonEmptyString, value: { type: "string" } }, ["name", "value"]),
  ConnectionNeed: closedObject(
    {
      app: { ...nonEmptyString, description: "The app's entry id: `google`, `github`." },
      permissions: { ...stringList, description: "The entry's permission keys the call needs: `gmail.send`." },
      as: {
        type: "string",
        enum: ["person", "company"],
        description:
          "Whose connection: `person`, the run's person (the one it acts for, who started it or owns its trigger); `company`, the tenant's.",
      },
    },
    ["app", "permissions", "as"],
  ),
  HttpAuthSpec: discriminated([
    closedObject({ kind: { const: "bearer" }, secretRef: { $ref: "#/$defs/ToolSecretRef" } }, ["kind", "secretRef"]),
    closedObject(
      { kind: { const: "header" }, headerName: nonEmptyString, secretRef: { $ref: "#/$defs/ToolSecretRef" } },
      ["kind", "headerName", "secretRef"],
    ),
    closedObject(
      {
        kind: { const: "connection" },
        connection: {
          ...nonEmptyString,
          description:
            "A connection the tool declares in `needsSpec.connections`, by its name there: sent as `Authorization: Bearer <access token>`.",
        },
      },
      ["kind", "connection"],
    ),
  ]),
  HttpRequestBodySpec: discriminated([
    closedObject({ kind: { const: "json-input" } }, ["kind"]),
    closedObject({ kind: { const: "input-passthrough" } }, ["kind"]),
    closedObject({ kind: { const: "text" }, template: { type: "string" } }, ["kind", "template"]),
  ]),
  HttpToolSpec: closedObject(
    {
      kind: { const: "http" },
      method: { type: "string", enum: ["GET", "POST", "PUT", "PATCH", "DELETE"] },
      urlTemplate: {
        ...nonEmptyString,
        description: "URL template with `{param}` placeholders substituted from the tool's input at invoke time.",
      },
      headers: { type: "array", items: { $ref: "#/$defs/HttpHeaderSpec" } },
      authorization: { $ref: "#/$defs/HttpAuthSpec" },
      requestBody: { $ref: "#/$defs/HttpRequestBodySpec" },
      timeoutMs: {
        type: "integer",
        minimum: 1,
        maximum: MAX_TIMEOUT_MS,
        default: 30000,
        description: "Wall-clock timeout in ms, 1 to 2147483647 (what a timer can hold). Default 30000.",
      },
      parseJson: {
        type: "boolean",
        default: true,
        description: "When true (default), the response body is parsed as JSON before returning to the invoker.",
      },
      successStatus: closedObject(
        {
          min: { type: "integer", minimum: 100, maximum: 599 },
          max: { type: "integer", minimum: 100, maximum: 599 },
        },
        ["min", "max"],
        "The statuses that count as success, min to max inclusive (min ≤ max). Default 200 to 299.",
      ),
    },
    ["kind", "method", "urlTemplate"],
    "Declarative HTTP-invocation spec. Attached to `ToolManifest.spec` under the discriminant `kind: 'http'`. The runtime " +
      "`Tool.handler` is synthesized by the 'http' spec synthesizer to perform URL-template substitution, secret-ref " +
      "resolution via `ToolContext.resolveSecret`, and the outbound fetch. All fields serialize cleanly to JSON.",
  ),
};

const manifestProperties = {
  id: {
    ...catalogIdSchema,
    description:
      "Unique tool identifier, 1 to 200 characters without control characters. Convention: '<pack>.<tool>' (e.g. " +
      "'acme.verify-citation') or a bare id for tools built into Kindgi.",
  },
  description: {
    ...nonEmptyString,
    description:
      "Human- and LLM-readable description of what this tool does. Load-bearing: this is what the LLM sees when deciding to call the tool.",
  },
  version: { type: "string", pattern: TOOL_VERSION_PATTERN, description: "Semantic version MAJOR.MINOR.PATCH, without leading zeros." },
  input: { ...freeFormObject, description: ioSchemaDescription("input") },
  output: { ...freeFormObject, description: ioSchemaDescription("output") },
  needs: {
    type: "array",
    items: { $ref: "#/$defs/Need" },
    description:
      "Typed context requirements — named slots (e.g. `tenant`, `run`, `blob`, `memory:facts`) the runtime injects via " +
      "`ToolContext`. Declarative: not checked when a flow is loaded. `needsSpec` is the typed, discriminated form. A pack " +
      "handler receives `tenant`, `project`, `run`, `conversation` (`{id}`) and `memory:<type>` (a reader of the " +
      "project's facts of that type) in `context.needs`; a slot without `optional: true` that the run cannot provide " +
      "fails the call with reason `need-unavailable` before the handler runs.",
  },
  effects: {
    type: "array",
    items: { $ref: "#/$defs/Effect" },
    description:
      "Declared side-effects. Enables policy enforcement (can this tool run in this tenant?), safe parallelization " +
      "(are two calls conflicting?), and causal provenance.",
  },
  transport: {
    type: "string",
    enum: ["auto", "native", "mcp"],
    default: "auto",
    description:
      "Transport hint. 'auto' (default) lets the runtime pick native when possible, MCP otherwise. 'native' requires " +
      "in-process execution. 'mcp' requires MCP execution. Deployment-time concern; authoring is unchanged.",
  },
  mcpEndpoint: {
    type: "string",
    description:
      "If transport = 'mcp' (or resolved to MCP by 'auto'), the MCP endpoint URI. Format: 'mcp+stdio://<command>', " +
      "'mcp+http://<url>', 'mcp+sse://<url>'.",
  },
  metadata: {
    ...freeFormObject,
    description: "Free-form annotations (author, docs URL, tags). Not interpreted by the kernel.",
  },
  sandbox: {
    type: "string",
    enum: ["none", "context-isolated", "strict"],
    description: "Isolation posture the runtime enforces around the handler. Optional additive field.",
  },
  mutating: {
    type: "boolean",
    default: true,
    description:
      "Semantic marker: `true` when this tool causes observable side effects (writes state, calls external APIs with " +
      "mutations, sends messages). Read-only tools set `false`. Absent defaults to `true`. Consumed by the HITL default " +
      "classifier — a read-only tool passes straight through, a mutating tool asks on first use. It also decides what " +
      "runs together: calls to read-only tools that a model step asks for one after another run at the same time, up " +
      "to 8 at once, unless the agent sets `parallelToolCalls: false`; a call to a mutating tool runs on its own, and " +
      "so does a call to a read-only tool that pauses or declares connections, since it may wait.",
  },
  needsApprovalWhenUnattended: {
    type: "boolean",
    default: false,
    description:
      "`true` when a person must say yes to every call of this tool in a run no person started (a schedule, a webhook, " +
      "an event, a mail or a service account's key started it). In such a run an agent's call waits for a person's yes " +
      "whatever the agent's approval rules say, and a flow's tool step that calls it is refused. A webhook trigger, a " +
      "schedule or a mail trigger whose `toolsAllowedUnattended` names the tool (a project admin's to set) lifts that, " +
      "in its own runs only. A tool that uses a person's connection, reads included, counts as declaring it, whatever " +
      "this or `mutating` says. In a run a mail started, so does a tool that isn't `mutating: false`, and one that uses " +
      "the run's own mailbox. Absent means `false`. Optional additive field.",
  },
  pauses: {
    type: "boolean",
    default: false,
    description:
      "`true` when the tool may make its run wait for another system's answer: each call gets a wait token, hands its " +
      "link to that system, and answers `pause`; the system's answer, valid against `output`, becomes the call's " +
      "result. The run waits at most 24 days (24 hours by default) and fails the call when the time passes. Only a " +
      "pack tool with a handler can pause: not one with a declarative `spec`, nor an MCP tool. Absent means `false`. " +
      "Optional additive field.",
  },
  resultIsOutsideData: {
    type: "boolean",
    default: false,
    description:
      "`true` when the tool's results are text from outside that nobody checked, such as a mail someone sent or a page " +
      "a search found: an agent reads each result as data, not instructions, in this turn and in every later turn's " +
      "history. It changes what the model is told, not what the tool may do. Absent means `false`. Optional additive field.",
  },
  limits: closedObject(
    { memMB: { type: "integer", minimum: 1 }, cpuMs: { type: "integer", minimum: 1 } },
    ["memMB", "cpuMs"],
    "Sandbox-enforced resource caps at dispatch. Optional additive field.",
  ),
  network: discriminated(
    [
      closedObject({ kind: { type: "string", enum: ["none", "unrestricted"] } }, ["kind"]),
      closedObject({ kind: { const: "allowlist" }, hosts: stringList }, ["kind", "hosts"]),
    ],
    "Network egress policy. Optional additive field. Discriminated on `kind`.",
  ),
  needsSpec: closedObject(
    {
      env: objectMap,
      secrets: {
        ...objectMap,
        description:
          "Secrets a pack handler reads, by its name for each: an entry's `name` is the stored secret (default: the key), " +
          "read with `context.resolveSecret(key)`; with an `envName`, the secret is also resolved before the call and put " +
          "in `context.env` under that name. Every resolved value is redacted from logs, results and error messages.",
      },
      config: objectMap,
      capabilities: stringList,
      bindings: stringList,
      connections: {
        type: "object",
        additionalProperties: { $ref: "#/$defs/ConnectionNeed" },
        description:
          "Accounts at other apps the tool acts with, by the tool's own name for each (`mail`). The runtime resolves " +
          "them per call into the context's `connections`.",
      },
    },
    [],
    "Typed discriminated needs (env / secrets / config / capabilities / bindings / connections). Optional additive field.",
  ),
  codeArtifactRef: discriminated(
    [
      closedObject(
        {
          kind: { const: "oci" },
          imageRef: nonEmptyString,
          modulePath: nonEmptyString,
          artifactVersion: nonEmptyString,
        },
        ["kind", "imageRef", "modulePath", "artifactVersion"],
      ),
      closedObject({ kind: { const: "filesystem" }, modulePath: nonEmptyString }, ["kind", "modulePath"]),
    ],
    "Handler-artifact pointer. Discriminated on `kind`: `oci` is the deploy-pipeline shape (image + module path + " +
      "artifactVersion); `filesystem` is the local-development shape — absolute host path at the pack's on-disk " +
      "handler file. Production servers SHOULD reject `filesystem`.",
  ),
  spec: {
    $ref: "#/$defs/HttpToolSpec",
    description:
      "Declarative handler spec. Discriminated on `kind`; the framework's synthesizer registry maps kind → runtime " +
      "handler. Mutually exclusive with an imperative handler at author time.",
  },
};

/** JSON Schema (Draft 2020-12) of a Tool 1.3.0 manifest. Validate it with Ajv option `discriminator: true`. */
export const toolManifestSchema = {
  $schema: DRAFT_2020_12,
  $id: "https://kindgi.dev/schemas/tool-1.3.0.json",
  title: "Tool",
  description:
    "A tool definition. Authored once; the runtime picks transport (native in-process for tools built into the runtime, " +
    "MCP over the wire for cross-process / cross-org / third-party tools). Every tool declares its typed I/O, its " +
    "context needs (typed DI), and its side-effects — enabling policy enforcement and parallel scheduling by the kernel.",
  type: "object",
  additionalProperties: false,
  required: ["id", "description", "version", "input", "output"],
  properties: manifestProperties,
  $defs,
};

/** JSON Schema of the `POST /v1/tools` body: a Tool 1.3.0 manifest plus the `projectId` it belongs to. */
export const registerToolBodySchema = {
  ...toolManifestSchema,
  $id: "https://kindgi.dev/schemas/register-tool-body-1.3.0.json",
  title: "RegisterToolBody",
  required: [...toolManifestSchema.required, "projectId"],
  properties: {
    ...manifestProperties,
    projectId: {
      type: "string",
      format: "uuid",
      description:
        "Project this belongs to (its content scope). Required: missing, or not a project in the caller's tenant → 400 bad-input.",
    },
  },
};
