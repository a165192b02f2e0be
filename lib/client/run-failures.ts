/**
 * Every run failure code (lib/kernel/types.ts `RunFailureCode`) explained in a sentence a person can act on.
 * A code the console does not know yet is shown with the server's message alone.
 */
import type { RunFailureCode } from "@/lib/kernel/types";

export const FAILURE_SENTENCES: Record<RunFailureCode, string> = {
  "budget-exceeded": "The run hit its budget: the agent's step limit, cost limit or wall-clock limit was reached before it finished.",
  "unresolved-tool": "The model kept asking for a tool this agent does not have, more often than its tool-error policy allows.",
  "tool-invocation-failed": "A tool call failed (its arguments were invalid, or the tool itself failed) more often than the tool-error policy allows.",
  "output-schema-violation": "The final answer did not match the agent's output schema, even after the allowed repairs.",
  "guardrail-violation": "A halting guardrail rejected the final answer, so it was not stored.",
  "unresolved-guardrail": "The agent names a guardrail that is not registered (or not active) in its project.",
  "tool-version-unresolvable": "A tool range of the agent matched no active tool version when the turn started.",
  "agent-unavailable": "The agent version is not registered (or was unregistered) in the run's project.",
  "no-provider": "No configured model provider satisfies the agent's required capabilities.",
  "provider-unavailable": "The model provider could not be reached or was unavailable.",
  "provider-rate-limited": "The model provider refused the call because of a rate limit.",
  "provider-auth-failed": "The model provider refused the credentials (its key is wrong, or the secret holding it is gone).",
  "provider-bad-response": "The model provider answered with something that could not be understood.",
  "provider-request-failed": "The model provider rejected the request.",
  "instructions-render-failed": "The agent's instructions could not be rendered with the run's parameters.",
  "approval-rejected": "A person declined to continue: the session approval the turn waited for was rejected.",
  "approval-expired": "An approval the run waited for expired before anyone decided, and the server is set to fail the turn in that case.",
  "approval-invalid": "An approval no longer matched what the reviewer was asked (its record was changed or could not be read), so the call was not run.",
  "wait-expired": "A paused tool call's answer did not arrive before its wait expired.",
  "internal-error": "Something unexpected failed inside the server; the details are in the server log.",
};

export function failureSentence(code: string): string | null {
  return (FAILURE_SENTENCES as Record<string, string>)[code] ?? null;
}
