/** Shapes of the /v1 agent answers the console reads (see lib/api/operations/agents.ts). */
import type { AgentDefinition } from "@/lib/agents/validate-agent";
import type { FormField, ParameterForm } from "@/lib/agents/form";
import type { Issue } from "@/lib/client/api";

export type { AgentDefinition, FormField, ParameterForm };

export type AgentSummary = { agentId: string; projectId: string; latestVersion: string; name: string; description: string; tags: string[]; registeredAt: string };

export type AgentVersionSummary = { version: string; status: "active" | "unregistered"; isLatest: boolean; registeredAt: string; statusChangedAt: string | null };

export type AgentVersion = {
  agentId: string;
  version: string;
  projectId: string;
  status: "active" | "unregistered";
  isLatest: boolean;
  registeredAt: string;
  registeredBy: string;
  statusChangedAt: string | null;
  definition: AgentDefinition;
};

/** What an expired approval of the agent's calls does: back to the model as a rejection, or the turn fails. */
export type ApprovalExpiryChoice = "reject" | "fail";

export type AgentDetail = {
  agentId: string;
  projectId: string;
  latestVersion: string | null;
  latest: AgentVersion | null;
  versions: AgentVersionSummary[];
  createdAt: string;
  /** The agent's own choice; null: the server's default. */
  onApprovalExpired: ApprovalExpiryChoice | null;
  effectiveOnApprovalExpired: ApprovalExpiryChoice;
};

export type ToolResolutionItem = { index: number; id: string; range: string; version: string | null; available: string[] };

export type AgentDryRun = {
  valid: boolean;
  issues: Issue[];
  warnings: Issue[];
  resolution: ToolResolutionItem[];
  routing: { providerId: string; model: string; reason: string } | { error: "no-provider"; message: string };
  /** The embedding model retrieval by meaning would use (the agent's `embedding` capability entry, else the project's). */
  embeddingRouting?: { providerId: string; model: string; reason: string } | { error: "no-provider"; message: string };
};

export type RenderedInstructions = { rendered: string; parameters: Record<string, unknown> };

export type ToolOption = { toolId: string; projectId: string | null; latestVersion: string; description: string; mutating: boolean; transport: string; tags: string[]; builtIn: boolean };
