/** Shapes of the /v1 tool responses the console reads (the OpenAPI document at /v1/openapi.json is the reference). */

export const EFFECT_KINDS = ["reads", "writes", "deletes", "network", "spawns-run", "emits-event", "external-side-effect", "sensitive-data-egress"] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];
export const TRANSPORTS = ["auto", "native", "mcp"] as const;

/** A row of GET /v1/tools: the latest active version of a tool. */
export type ToolSummary = {
  toolId: string;
  /** Null for a tool built into Kindgi. */
  projectId: string | null;
  latestVersion: string;
  description: string;
  mutating: boolean;
  transport: "auto" | "native" | "mcp";
  effects: EffectKind[];
  tags: string[];
  needsApprovalWhenUnattended: boolean;
  pauses: boolean;
  resultIsOutsideData: boolean;
  registeredAt: string;
  /** A tool built into Kindgi: listed in every project, no registration needed. */
  builtIn: boolean;
};

export type ToolFilters = { q?: string; effect?: EffectKind; mutating?: boolean; transport?: ToolSummary["transport"] };

export type NetworkPolicy = { kind: "none" | "unrestricted" } | { kind: "allowlist"; hosts: string[] };

export type HttpToolSpec = {
  kind: "http";
  method: string;
  urlTemplate: string;
  headers?: Array<{ name: string; value: string }>;
  authorization?: { kind: "bearer"; secretRef: { envName: string; name: string } } | { kind: "header"; headerName: string; secretRef: { envName: string; name: string } } | { kind: "connection"; connection: string };
  requestBody?: { kind: "json-input" } | { kind: "input-passthrough" } | { kind: "text"; template: string };
  timeoutMs?: number;
  parseJson?: boolean;
  successStatus?: { min: number; max: number };
};

/** A Tool 1.3.0 manifest as registered. */
export type ToolManifest = {
  id: string;
  description: string;
  version: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  needs?: Array<{ name: string; optional?: boolean }>;
  effects?: Array<{ kind: EffectKind; resource?: string; notes?: string }>;
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
  needsSpec?: {
    env?: Record<string, Record<string, unknown>>;
    secrets?: Record<string, Record<string, unknown>>;
    config?: Record<string, Record<string, unknown>>;
    capabilities?: string[];
    bindings?: string[];
    connections?: Record<string, { app: string; permissions: string[]; as: "person" | "company" }>;
  };
  codeArtifactRef?: { kind: "oci"; imageRef: string; modulePath: string; artifactVersion: string } | { kind: "filesystem"; modulePath: string };
  spec?: HttpToolSpec;
};

export type ToolVersionSummary = { version: string; status: "active" | "unregistered"; isLatest: boolean; registeredAt: string; statusChangedAt: string | null };

/** GET /v1/tools/{toolId}/versions/{version}. */
export type ToolVersion = {
  toolId: string;
  version: string;
  projectId: string | null;
  status: "active" | "unregistered";
  isLatest: boolean;
  registeredAt: string;
  registeredBy: string | null;
  statusChangedAt: string | null;
  manifest: ToolManifest;
  builtIn: boolean;
  /** An `oci` handler's artifact: the digest its imageRef resolved to at registration (the bytes this version runs). */
  artifact: { imageRef: string; digest: string; artifactVersion: string } | null;
};

/** GET /v1/tools/{toolId}. */
export type ToolDetail = {
  toolId: string;
  projectId: string | null;
  latestVersion: string | null;
  latest: ToolVersion | null;
  versions: ToolVersionSummary[];
  createdAt: string;
  builtIn: boolean;
};

/** What POST /v1/tools/{toolId}/versions/{version}/invoke answers: the run it recorded, settled when it could. */
export type ToolRun = {
  id: string;
  status: string;
  output?: unknown;
  failure?: { code: string; message: string; [key: string]: unknown } | null;
  [key: string]: unknown;
};
