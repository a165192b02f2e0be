"use client";

/**
 * What an expired approval of this agent's calls does — an agent setting outside its versions
 * (PATCH /v1/agents/{agentId} `onApprovalExpired`). Saved as soon as a choice is picked.
 */
import { useId, useState } from "react";
import type { AgentDetail, ApprovalExpiryChoice } from "@/lib/client/agent-types";
import { useUpdateAgentSettings } from "@/lib/client/use-agent-settings";
import { useIdentity } from "@/lib/client/use-identity";
import { ErrorBanner } from "@/components/ui";

const OPTIONS: { value: ApprovalExpiryChoice | null; label: string; help: string }[] = [
  { value: null, label: "The server's default", help: "KINDGI_APPROVAL_EXPIRED on the server; unless it says fail, the call goes back to the model as a rejection." },
  { value: "reject", label: "Send it back to the model", help: "The call is not run; the model gets a rejection with the reason expired and the turn goes on." },
  { value: "fail", label: "Fail the run", help: "The call is not run and the turn fails with approval-expired." },
];

const IN_WORDS: Record<ApprovalExpiryChoice, string> = { reject: "the call goes back to the model as a rejection", fail: "the run fails" };

export function ApprovalExpiryChoiceSection({ agent }: { agent: AgentDetail }) {
  const update = useUpdateAgentSettings(agent.agentId);
  const identity = useIdentity();
  const viewer = identity.data?.user.role === "viewer";
  const name = useId();
  // A pick shows at once: a controlled radio must change in its own event, before the save is even pending. It gives
  // way to the agent once the saved agent comes back (its value changed), or to the old value if the save failed.
  const [picked, setPicked] = useState<{ value: ApprovalExpiryChoice | null; over: ApprovalExpiryChoice | null } | null>(null);
  const chosen = picked && picked.over === agent.onApprovalExpired && !update.isError ? picked.value : agent.onApprovalExpired;
  return (
    <section aria-labelledby={`${name}-title`} className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-950">
      <fieldset disabled={update.isPending || viewer} aria-describedby={`${name}-now`}>
        <legend id={`${name}-title`} className="text-sm font-semibold">
          When an approval expires
        </legend>
        <p className="mb-3 text-xs text-zinc-600 dark:text-zinc-400">
          For every version of this agent, and for approvals asked from now on (each approval keeps what it was asked with).
        </p>
        <div className="space-y-2">
          {OPTIONS.map((option) => {
            const id = `${name}-${option.value ?? "default"}`;
            return (
              <div key={id} className="flex items-start gap-2">
                <input
                  type="radio"
                  id={id}
                  name={`${name}-choice`}
                  className="mt-1 h-4 w-4 accent-indigo-600"
                  checked={chosen === option.value}
                  onChange={() => {
                    setPicked({ value: option.value, over: agent.onApprovalExpired });
                    update.mutate({ onApprovalExpired: option.value });
                  }}
                  aria-describedby={`${id}-help`}
                />
                <label htmlFor={id} className="text-sm">
                  <span className="font-medium">{option.label}</span>
                  <span id={`${id}-help`} className="block text-xs text-zinc-600 dark:text-zinc-400">
                    {option.help}
                  </span>
                </label>
              </div>
            );
          })}
        </div>
        <p id={`${name}-now`} role="status" className="mt-3 text-xs text-zinc-700 dark:text-zinc-300">
          {update.isPending ? "Saving…" : `Now: when an approval expires, ${IN_WORDS[agent.effectiveOnApprovalExpired]}.`}
          {viewer ? " Viewers cannot change it." : ""}
        </p>
      </fieldset>
      <ErrorBanner className="mt-3" title="The choice was not saved" error={update.error} />
    </section>
  );
}
