/**
 * What the kernel needs from the rest of the product, as one interface: definitions and tools from the registry,
 * routing and model providers, guardrails, memory, conversation history, and tool invokers. The turn loop depends
 * on this and on the store only; lib/services/kernel-environment.ts implements it over the product's services.
 */
import type { KernelTx } from "@/lib/kernel/store";
import type { AgentDefinition, RetrievalIntent } from "@/lib/agents/validate-agent";
import type { ModelProvider } from "@/lib/models/provider";
import type { RouteResult } from "@/lib/models/router";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import type { Finding, ResolvedToolRef, RunDelta, ToolCallResult, ToolLiveEvent, ToolLogLine, ToolProgress, TurnFact, TurnRetrieval } from "@/lib/kernel/types";

/** Where a run lives. */
export type RunScope = { tenantId: string; projectId: string; conversationId: string | null; runId: string; userId: string };

export type ToolResolutionOutcome = { resolved: ResolvedToolRef[]; unresolved: { id: string; range: string; available: string[] }[] };

/** The guardrails an agent names, resolved at turn start to their active versions. */
export type GuardrailSet = { resolved: { id: string; version: string }[]; missing: string[] };

/** The exact guardrail versions a turn started with, ready to check its final answer. */
export type GuardrailCheck = {
  /** `id@version` of those that can no longer be loaded. */
  missing: string[];
  /** Findings on a final answer, in the agent's order; never quotes the answer. */
  evaluate(answer: string): Promise<Finding[]>;
};

/** One tool call to perform: the input is already validated against the tool's `input` (defaults filled). */
export type ToolInvocation = {
  manifest: ToolManifest;
  input: unknown;
  scope: RunScope;
  callId: string;
  idempotencyKey: string;
  signal: AbortSignal;
  /** The commit's transaction, for native tools whose writes must land with the call's journal entry. */
  tx?: KernelTx;
  /** Lines the tool logs during the call (already redacted): journaled as `tool-logged` with the call's result. */
  log?: (line: ToolLogLine) => void;
  /** How far the call is (a handler's `context.progress`): live only, never journaled. */
  progress?: (update: ToolProgress) => void;
  /** A tool with `pauses: true`: the wait token and completion link `context.pause()` hands the handler. */
  pause?: PauseTicket;
};

/** What `context.pause()` returns to a handler: the wait's id, its token (the credential) and completion link. */
export type PauseTicket = { waitId: string; token: string; url: string; expiresAt: string };

/** A handler answered with its pause: the call waits for the answer posted to its link (at most until `expiresAt`). */
export type PausedOutcome = { paused: { waitId: string; expiresAt: string } };

export const isPaused = (outcome: ToolCallResult | PausedOutcome): outcome is PausedOutcome => "paused" in outcome;

/** An approval the gate asks for, written in the commit that journals `approval-requested`. */
export type ApprovalRequest = {
  scope: RunScope;
  kind: "tool-call" | "session";
  callId: string;
  agent: { id: string; version: string } | null;
  tool: { id: string; version: string } | null;
  reason: string;
  arguments: unknown;
  argumentsHash: string | null;
  effects: unknown[];
  requestedAt: Date;
  expiresAt: Date;
};

/** An approval row as the kernel reads it back on resume. */
export type ApprovalRecord = {
  id: string;
  runId: string;
  callId: string;
  status: string;
  argumentsHash: string | null;
  arguments: unknown;
  editedArguments: unknown;
  decidedBy: string | null;
  rationale: string | null;
  /** What expiry does to a tool call, fixed when it was asked (the agent's choice, else the deployment's). */
  onExpired: "reject" | "fail";
};

/** A wait token's row as the kernel reads it back on resume (never the token). */
export type WaitRecord = { id: string; runId: string; callId: string; status: string; output: unknown };

/**
 * What the approval gate and pauses need from storage. An environment without it (a test environment of the turn
 * loop) has no reviewers: every call passes and no tool can pause.
 */
export interface ApprovalGateway {
  /** Live (unrevoked) grants for (project, agent, tool); `condition` is a JSON Schema on the arguments, or null. */
  grants(scope: RunScope, agentId: string, toolId: string): Promise<{ id: string; condition: unknown }[]>;
  /** The tools the trigger of the run lets run unattended (the run's toolsAllowedUnattended). */
  toolsAllowedUnattended(scope: RunScope): Promise<string[]>;
  /** How long an approval waits before it expires. */
  approvalTtlMs(): number;
  createApproval(tx: KernelTx, request: ApprovalRequest): Promise<{ approvalId: string }>;
  loadApprovals(ids: readonly string[]): Promise<ApprovalRecord[]>;
  /** Creates (or, for a call run again, replaces) the call's wait token, stored hashed. */
  createWait(tx: KernelTx, input: { scope: RunScope; callId: string; tool: { id: string; version: string }; tokenHash: string; expiresAt: Date }): Promise<{ waitId: string }>;
  /** The handler paused: the wait now lasts until `expiresAt`. */
  startWait(tx: KernelTx, waitId: string, expiresAt: Date): Promise<void>;
  /** The handler answered without pausing: the token is void. */
  discardWait(tx: KernelTx, waitId: string): Promise<void>;
  loadWaits(ids: readonly string[]): Promise<WaitRecord[]>;
  /** The completion link of a wait. */
  completionUrl(waitId: string): string;
  /**
   * In the transaction that suspends the run: locks the awaited rows and answers whether every one is still
   * pending (a decision committed meanwhile keeps the run going instead).
   */
  stillPending(tx: KernelTx, awaited: { approvalIds: readonly string[]; waitIds: readonly string[] }): Promise<boolean>;
}

export interface KernelEnvironment {
  now(): Date;
  /**
   * Hears a model call's words as they are written (live, never journaled): the product relays them to the run's
   * streams on every replica. Called synchronously, in order; must not throw.
   */
  publishDelta?(scope: RunScope, delta: RunDelta): void;
  /**
   * Hears a tool call's log lines and progress as they happen (live; the log lines are journaled with the call's
   * result as well): the product relays them to an MCP client waiting for the call. Called synchronously; must not throw.
   */
  publishToolLive?(scope: RunScope, event: ToolLiveEvent): void;
  /** The agent version's definition (unregistered or not: the run pinned it), or null when there is none. */
  loadAgent(scope: RunScope, agentId: string, version: string): Promise<AgentDefinition | null>;
  resolveTools(scope: RunScope, definition: AgentDefinition): Promise<ToolResolutionOutcome>;
  /** The manifest of a resolved tool version (a registered one or a built-in). */
  loadTool(scope: RunScope, toolId: string, version: string): Promise<ToolManifest | null>;
  resolveGuardrails(scope: RunScope, ids: readonly string[]): Promise<GuardrailSet>;
  /** The versions recorded at turn start (a version registered or unregistered since changes nothing). */
  loadGuardrails(scope: RunScope, refs: readonly { id: string; version: string }[]): Promise<GuardrailCheck>;
  route(scope: RunScope, definition: AgentDefinition): Promise<RouteResult>;
  /**
   * The provider a route just chose, from what routing already read (no second lookup); falls back to
   * `modelProvider`. Optional: without it the turn looks the provider up at its first model call.
   */
  routedProvider?(scope: RunScope, route: RouteResult): Promise<ModelProvider | null>;
  /** The provider to call (null when it is no longer configured); its key is resolved per call. */
  modelProvider(scope: RunScope, providerId: string): Promise<ModelProvider | null>;
  /** The conversation's last `limit` messages (all when undefined), oldest first, and how many turns it has had. */
  conversationHistory(scope: RunScope, limit: number | undefined): Promise<{ messages: { role: "user" | "assistant"; content: string }[]; turns: number }>;
  /**
   * The facts an intent grounds the turn with. An intent that retrieves by meaning also answers `retrieval`: the
   * query's embedding model (the agent's `embedding` capability's route, `definition`), facts skipped, problems;
   * `failure` when no provider serves the agent's embedding entry (the turn needs it: it fails).
   */
  retrieveFacts(scope: RunScope, intent: RetrievalIntent, query: string, definition: AgentDefinition): Promise<{ facts: TurnFact[]; retrieval?: TurnRetrieval; failure?: { code: "no-provider"; message: string } }>;
  /** Whether a native tool's side effects should run inside the commit transaction (exactly once). */
  runsInCommit(manifest: ToolManifest): boolean;
  /**
   * Whether an in-commit tool writes through the commit's transaction. One that does not (a pure function such as
   * current-time) is invoked just before its commit, which is then a single statement; its result still lands in
   * the same commit as its start, so it is journaled exactly once.
   */
  needsCommitTransaction?(manifest: ToolManifest): boolean;
  invokeTool(call: ToolInvocation): Promise<ToolCallResult | PausedOutcome>;
  /** Approvals, grants and wait tokens (absent: no reviewers — every call passes, no tool pauses). */
  approvals?: ApprovalGateway;
}
