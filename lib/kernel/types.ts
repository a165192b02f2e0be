/**
 * The kernel's vocabulary: run statuses, failure codes, journal events and the step union the turn loop
 * advances over. Free of HTTP, React and storage: the journal (lib/kernel/journal.ts) folds these events into
 * a state, the turn (lib/kernel/turn.ts) performs one step, the store persists what it produced.
 */
import type { FinishReason, ModelDelta, ModelUsage, ToolCall } from "@/lib/models/provider";
import type { ToolErrorKind } from "@/lib/agents/validate-agent";
import type { Issue } from "@/lib/errors";

export type RunStatus = "pending" | "running" | "suspended" | "completed" | "failed" | "cancelled";

export const RUN_STATUSES: readonly RunStatus[] = ["pending", "running", "suspended", "completed", "failed", "cancelled"];

/** A run that will never change again. */
export const isTerminalStatus = (status: string): boolean => status === "completed" || status === "failed" || status === "cancelled";

/** A run a worker may pick up (it is not finished and not waiting for something outside). */
export const isRunnableStatus = (status: string): boolean => status === "pending" || status === "running";

/** What a caller waiting for a run waits for: the end, or a wait on something outside the kernel. */
export const isSettledStatus = (status: string): boolean => isTerminalStatus(status) || status === "suspended";

/**
 * Why a turn failed (`run.failure.code`). Stable: clients branch on it.
 * - `budget-exceeded`: maxSteps, maxCostUsd or maxWallMs was reached; `details.kind` is steps, cost or wall-clock.
 * - `unresolved-tool`: the model kept calling a tool the agent does not have, past toolErrors.
 * - `tool-invocation-failed`: a call failed (invalid arguments, or the tool failed) past toolErrors; in a tool
 *   invocation, its one call failed (`details.kind`, and `details.reason` such as network-denied when the invoker gives one).
 * - `output-schema-violation`: the final answer did not match `output.schema` after maxRepairs repairs.
 * - `guardrail-violation`: a guardrail with action halt rejected the final answer (it was not stored).
 * - `unresolved-guardrail`: the agent names a guardrail that is not registered (active) in its project.
 * - `tool-version-unresolvable`: a tool range matched no active version at turn start.
 * - `agent-unavailable`: the agent version is not registered in the run's project.
 * - `no-provider`: no configured model provider satisfies the agent's capabilities.
 * - `provider-*`: the model call failed (see lib/models/provider.ts).
 * - `instructions-render-failed`: the instructions could not be rendered with the run's parameters.
 * - `approval-rejected`: a session approval (hitlAfterTurns) was rejected, so the turn did not start.
 * - `approval-expired`: an approval expired and the deployment fails the call's turn (KINDGI_APPROVAL_EXPIRED=fail),
 *   or a session approval expired.
 * - `approval-invalid`: an approval's record no longer matches what was asked (its arguments were changed, or it
 *   cannot be read): fail closed, the call was not run.
 * - `wait-expired`: a paused call's wait token expired before its answer came (the call fails).
 * - `internal-error`: an unexpected failure; details are in the server log only.
 */
export type RunFailureCode =
  | "budget-exceeded"
  | "unresolved-tool"
  | "tool-invocation-failed"
  | "output-schema-violation"
  | "guardrail-violation"
  | "unresolved-guardrail"
  | "tool-version-unresolvable"
  | "agent-unavailable"
  | "no-provider"
  | "provider-unavailable"
  | "provider-rate-limited"
  | "provider-auth-failed"
  | "provider-bad-response"
  | "provider-request-failed"
  | "instructions-render-failed"
  | "approval-rejected"
  | "approval-expired"
  | "approval-invalid"
  | "wait-expired"
  | "internal-error";

export type RunFailure = { code: RunFailureCode; message: string; details?: Record<string, unknown> };

/** A tool resolved at turn start: the agent's range and the version it resolved to. */
export type ResolvedToolRef = { id: string; range: string; version: string };

/** A fact retrieval found for the turn (recorded on the run). */
/**
 * A fact a turn was grounded with: `foundBy` the ranking(s) that found it (keyword, semantic, or both), `score` its
 * score in the ranking that ordered it (ts_rank, cosine similarity, or the fused reciprocal-rank score). Both are
 * absent on turns journaled before they were recorded.
 */
export type TurnFact = { id: string; type: string; content: string; createdAt: string; score?: number; foundBy?: "keyword" | "semantic" | "both" };

/**
 * What a turn's retrieval by meaning did: the embedding model of the query (and what embedding it used and cost: the
 * cost is added to the run's), facts with no vector from it yet (skipped), problems.
 */
export type TurnRetrieval = { embedding: { providerId: string; model: string; inputTokens?: number; costUsd?: number } | null; skipped: number; warnings: string[] };

/** The outcome of one tool call, as journaled. */
/** A delta of a run's model call as it is written (never journaled): `callIndex` is the call's index in the turn. */
export type RunDelta = { callIndex: number } & ModelDelta;

export type ToolCallResult = { ok: true; output: unknown } | { ok: false; error: { kind: ToolErrorKind; message: string; reason?: string } };

/** A guardrail finding, as journaled (never quotes the answer). */
export type Finding = { guardrailId: string; version: string; action: "halt" | "flag"; check: string; message: string };

/**
 * What a run does: one turn of an agent, or a tool invocation — one call of one tool version with given arguments
 * and no agent or model (the catalog's "try it"), whose output is the call's result.
 */
export type RunKind = "agent-turn" | "tool-invocation";

export const RUN_KINDS: readonly RunKind[] = ["agent-turn", "tool-invocation"];

// ---- journal events: `data` of each type ----

/** The start of an agent turn. */
export type TurnCreatedData = {
  agent: { id: string; version: string };
  conversationId: string | null;
  userMessage: string;
  parameters: Record<string, unknown>;
  attended: boolean;
};

/** The call a tool invocation makes: an exact version, arguments as validated at creation (defaults filled). */
export type InvocationPlan = {
  toolId: string;
  version: string;
  arguments: Record<string, unknown>;
  /**
   * The approval rules of an agent's call apply (a mutating call asks): the call came from a client acting for
   * someone (the MCP server's `tools/call`), not from a person's own "try it". Absent: false.
   */
  asksLikeAnAgentCall?: boolean;
};

/** The start of a tool invocation. */
export type InvocationCreatedData = { invocation: InvocationPlan; attended: boolean };

export type RunCreatedData = TurnCreatedData | InvocationCreatedData;

/** A run-created event of a tool invocation (an agent turn's has no `invocation`). */
export const isInvocationCreated = (data: RunCreatedData): data is InvocationCreatedData => "invocation" in data;

/** A tool invocation began: the version's manifest was found and its deadline is set (startedAt + maxWallMs). */
export type InvocationStartedData = { tool: { id: string; version: string }; deadline: string };

export type TurnStartedData = {
  agent: { id: string; version: string; name: string };
  resolvedTools: ResolvedToolRef[];
  guardrails: { id: string; version: string }[];
  provider: { id: string; model: string; reason: string };
  /** The rendered instructions: the system prompt of every model call of the turn. */
  instructions: string;
  /** Earlier messages of the conversation sent with the turn (historyLimit applied). */
  history: { role: "user" | "assistant"; content: string }[];
  facts: TurnFact[];
  /** Present when an intent retrieves by meaning (`semantic` or `both`). */
  retrieval?: TurnRetrieval;
  /** The turn deadline (startedAt + maxWallMs), ISO. */
  deadline: string;
};

export type ModelCalledData = {
  index: number;
  text: string | null;
  /** The final answer was rejected by a halting guardrail and is not stored. */
  textWithheld?: true;
  toolCalls: ToolCall[];
  usage: ModelUsage;
  costUsd: number;
  finishReason: FinishReason;
  warnings: string[];
  attempts: number;
};

export type ToolCallStartedData = {
  callId: string;
  toolId: string;
  version: string;
  arguments: unknown;
  idempotencyKey: string;
  /** An `oci` handler's artifact: its imageRef, its artifactVersion and the manifest digest the call ran. */
  artifact?: { imageRef: string; artifactVersion: string; digest?: string };
};

export type ToolCallCompletedData = { callId: string; toolId: string; durationMs: number } & ToolCallResult;

/** A line a tool (a pack handler) logged during a call, redacted; journaled just before the call's result. */
export type ToolLogLine = { level: "debug" | "info" | "warn" | "error"; message: string; at: string };

export type ToolLoggedData = { callId: string; toolId: string } & ToolLogLine;

/** How far a tool call is, as its tool says (a handler's `context.progress`). */
export type ToolProgress = { progress: number; total?: number; message?: string };

/** A tool call's log line or progress, heard live (lib/kernel/environment.ts `publishToolLive`). */
export type ToolLiveEvent = { callId: string; toolId: string } & ({ kind: "log"; line: ToolLogLine } | ({ kind: "progress" } & ToolProgress));

/**
 * The gate asked a person before a call (or, `kind: "session"`, before a turn): journaled before the run waits, so
 * a policy change during the wait cannot skip the reviewer and a resumed run never asks twice. `remainingMs` is
 * what was left of the wall-clock budget: the wait does not count against it.
 */
export type ApprovalRequestedData = {
  approvalId: string;
  kind: "tool-call" | "session";
  callId: string;
  toolId: string | null;
  version: string | null;
  reason: string;
  argumentsHash: string | null;
  expiresAt: string;
  remainingMs: number;
};

/** What became of an approval; `arguments` are the ones the call runs with (the edited ones, when edited). */
export type ApprovalDecidedData = {
  approvalId: string;
  callId: string;
  decision: "approved" | "rejected" | "expired" | "withdrawn" | "invalid";
  decidedBy: string | null;
  rationale: string | null;
  arguments?: unknown;
  edited?: boolean;
  /** The new deadline (now + the budget left when the run began to wait). */
  deadline: string;
};

/** A call paused on a wait token (its link was handed to another system). */
export type WaitStartedData = { waitId: string; callId: string; toolId: string; expiresAt: string; remainingMs: number };

/** The answer came (completed: it is the call's result) or the wait expired (the call failed). */
export type WaitCompletedData = { waitId: string; callId: string; outcome: "completed" | "expired"; deadline: string };

export type OutputRepairData = { attempt: number; issues: Issue[] };

export type JournalEventData = {
  "run-created": RunCreatedData;
  "run-resumed": { worker: string; previousWorker: string | null };
  "turn-started": TurnStartedData;
  "invocation-started": InvocationStartedData;
  "model-called": ModelCalledData;
  "tool-call-started": ToolCallStartedData;
  "tool-logged": ToolLoggedData;
  "tool-call-completed": ToolCallCompletedData;
  "output-repair-requested": OutputRepairData;
  "approval-requested": ApprovalRequestedData;
  "approval-decided": ApprovalDecidedData;
  "wait-started": WaitStartedData;
  "wait-completed": WaitCompletedData;
  "guardrail-flagged": { findings: Finding[] };
  "run-completed": { output: unknown };
  "run-failed": { failure: RunFailure };
  "run-cancelled": { by: string };
};

export type JournalEventType = keyof JournalEventData;

/** An event not yet written: the store numbers it. */
export type NewEvent = { [K in JournalEventType]: { type: K; data: JournalEventData[K] } }[JournalEventType];

/** A journaled event. */
export type JournalEvent = NewEvent & { seq: number; createdAt: string };

/** The events after which nothing more is written. */
export const isTerminalEvent = (type: string): boolean => type === "run-completed" || type === "run-failed" || type === "run-cancelled";

/** One tool call the model asked for, with the kernel's own id (`<model call index>.<position>`). */
export type PlannedCall = { callId: string; providerCallId: string; toolId: string; arguments: unknown };

/** What a waiting run waits on: an approval (of a call, or of the session before a turn) or a paused call's wait token. */
export type AwaitedItem = { callId: string; reason: string; approvalId?: string; waitId?: string; argumentsHash?: string | null; remainingMs: number };

/**
 * What the run does next. An agent turn starts with `start-turn`, then alternates `call-model` and `run-tools`; a
 * tool invocation starts with `start-invocation`, then one `run-tools` with its one call, then `done` with the call's
 * result (or `failed`). `await` is a run that waits on something outside the kernel (an approval, a paused
 * tool): the run is suspended and holds no process until it is resumed.
 */
export type Step =
  | { kind: "start-turn" }
  | { kind: "start-invocation"; tool: { id: string; version: string } }
  | { kind: "call-model" }
  | { kind: "run-tools"; calls: PlannedCall[] }
  | { kind: "await"; waits: AwaitedItem[] }
  | { kind: "done"; output: unknown }
  | { kind: "failed"; failure: RunFailure };
