/**
 * The approval policy (Tool schema 1.3.0 `mutating`, `needsApprovalWhenUnattended`, `needsSpec.connections`;
 * DESIGN.md §6), pure: whether a call may start, or must first wait for a person's yes.
 *
 * - A read-only call (`mutating: false`) passes.
 * - A mutating call (absent `mutating` means mutating) asks, unless a live grant for (project, agent, tool) matches
 *   its arguments (a grant without a condition matches every call).
 * - In an unattended run (a schedule, a webhook, a service account's key started it), a tool with
 *   `needsApprovalWhenUnattended` — or that uses a person's connection (`needsSpec.connections` with `as: "person"`) —
 *   asks on every call whatever grants exist, unless the run's `toolsAllowedUnattended` names the tool.
 * - A tool invocation a person started (the catalog's "try it") is that person's explicit act: only the unattended
 *   rule applies to invocations. An invocation the MCP server started (a client acting for someone) is not such an
 *   act: it is decided as an agent's call (`invocation: false`).
 */
import { sha256Hex } from "@/lib/hash";
import { sortedKeysJson } from "@/lib/json";
import type { ToolManifest } from "@/lib/tools/manifest-schema";

/** Why a call or a turn waits for a person. */
export type ApprovalReason = "mutating" | "unattended" | "person-connection" | "hitl-after-turns";

export type GateDecision = { kind: "pass"; grantId?: string } | { kind: "ask"; reason: ApprovalReason };

/** A grant as the policy sees it: `matches(arguments)` evaluates its condition (true when it has none). */
export type GrantView = { id: string; matches: (args: unknown) => boolean };

export type GateInput = {
  manifest: Pick<ToolManifest, "id" | "mutating" | "needsApprovalWhenUnattended" | "needsSpec">;
  arguments: unknown;
  /** A person started the run. */
  attended: boolean;
  /** A tool invocation (one call of one tool, no agent) rather than an agent's call. */
  invocation: boolean;
  /** The run's `toolsAllowedUnattended` (its trigger's). */
  toolsAllowedUnattended: readonly string[];
  /** Live grants for (project, agent, tool). */
  grants: readonly GrantView[];
};

/** Whether the tool acts with the run's person's account at another app. */
export function usesPersonConnection(manifest: Pick<ToolManifest, "needsSpec">): boolean {
  const connections = (manifest.needsSpec?.connections ?? {}) as Record<string, { as?: string } | undefined>;
  return Object.values(connections).some((need) => need?.as === "person");
}

/** Whether the tool needs a person's yes on every call of an unattended run (before toolsAllowedUnattended). */
export function asksWhenUnattended(manifest: Pick<ToolManifest, "needsApprovalWhenUnattended" | "needsSpec">): ApprovalReason | null {
  if (manifest.needsApprovalWhenUnattended === true) return "unattended";
  if (usesPersonConnection(manifest)) return "person-connection";
  return null;
}

/** The gate's decision for one call. */
export function decideCall(input: GateInput): GateDecision {
  const { manifest } = input;
  if (!input.attended) {
    const reason = asksWhenUnattended(manifest);
    if (reason && !input.toolsAllowedUnattended.includes(manifest.id)) return { kind: "ask", reason };
  }
  if (input.invocation) return { kind: "pass" };
  if (manifest.mutating === false) return { kind: "pass" };
  const grant = input.grants.find((candidate) => candidate.matches(input.arguments));
  return grant ? { kind: "pass", grantId: grant.id } : { kind: "ask", reason: "mutating" };
}

/** Whether the agent's conversation policy asks for a session approval before this turn (after every N completed turns). */
export function asksForSession(hitlAfterTurns: number | undefined, completedTurns: number): boolean {
  return typeof hitlAfterTurns === "number" && hitlAfterTurns > 0 && completedTurns > 0 && completedTurns % hitlAfterTurns === 0;
}

/** sha256 (hex) of the arguments' JSON with sorted keys: what an approval is bound to. */
export function argumentsHash(args: unknown): string {
  return sha256Hex(sortedKeysJson(args));
}

/** How long an approval waits by default (KINDGI_APPROVAL_TTL_MS; 24 h). */
export const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;
/** A paused call waits 24 h by default and 24 days at most (Tool schema 1.3.0 `pauses`). */
export const DEFAULT_WAIT_MS = 24 * 60 * 60 * 1000;
export const MAX_WAIT_MS = 24 * 24 * 60 * 60 * 1000;

export function approvalTtlMs(env: NodeJS.ProcessEnv = process.env): number {
  const parsed = Number(env.KINDGI_APPROVAL_TTL_MS);
  return Number.isFinite(parsed) && parsed >= 1000 ? Math.min(parsed, MAX_WAIT_MS) : DEFAULT_APPROVAL_TTL_MS;
}

export type ApprovalExpiryAction = "reject" | "fail";

/**
 * What an expired approval does to the call: `reject` — it goes back to the model as a rejection with reason
 * `expired` and the turn continues — or `fail`: the turn fails (approval-expired). An agent chooses it
 * (`PATCH /v1/agents/{agentId}` `onApprovalExpired`, outside the versioned definition, which has no field for it);
 * otherwise the deployment's KINDGI_APPROVAL_EXPIRED decides, `reject` by default. The choice is fixed on the
 * approval when it is asked.
 */
export function expiredApprovalAction(agentChoice?: string | null, env: NodeJS.ProcessEnv = process.env): ApprovalExpiryAction {
  if (agentChoice === "reject" || agentChoice === "fail") return agentChoice;
  return env.KINDGI_APPROVAL_EXPIRED === "fail" ? "fail" : "reject";
}
