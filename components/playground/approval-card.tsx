"use client";
/**
 * An approval of the run the playground watches, in the conversation: while it is pending, the inbox's own detail and
 * actions (approve, approve and remember, reject with a reason, edit then approve); once decided — here or by anyone
 * elsewhere — one line saying who decided what (and the edit, as a diff).
 */
import { useEffect, useRef } from "react";
import { ApprovalDetail, ArgumentsDiff } from "@/components/approvals/approval-detail";
import { Badge } from "@/components/ui";
import type { Approval } from "@/lib/client/use-approvals";
import { useMembers } from "@/lib/client/use-settings";

export function ApprovalCard({ approval }: { approval: Approval }) {
  const members = useMembers();
  const card = useRef<HTMLDivElement>(null);
  const pending = approval.status === "pending";
  // Someone who joined after the member list was read: read it again, once.
  const unknownDecider = Boolean(approval.decidedBy && members.data && !members.data.some((item) => item.id === approval.decidedBy));
  const refetched = useRef(false);
  useEffect(() => {
    if (unknownDecider && !refetched.current) {
      refetched.current = true;
      void members.refetch();
    }
  }, [unknownDecider, members]);
  useEffect(() => {
    // A call that waits brings its actions into view (braces: scrollIntoView may return a promise).
    if (pending) {
      card.current?.scrollIntoView({ block: "nearest" });
    }
  }, [pending]);
  const who = (userId: string | null) => {
    if (!userId) return "someone";
    const member = members.data?.find((item) => item.id === userId);
    return member ? member.name || member.email : `member ${userId.slice(0, 8)}`;
  };
  const subject = approval.kind === "session" ? "The next turn" : `${approval.tool?.id ?? "The call"} @ ${approval.tool?.version ?? "?"}`;

  if (pending) {
    return (
      <div ref={card} className="rounded-lg border border-amber-300 bg-amber-50/60 p-3 dark:border-amber-800 dark:bg-amber-950/40" data-testid="approval-card" data-status="pending" data-approval-id={approval.id}>
        <p className="mb-2 text-xs font-medium text-amber-900 dark:text-amber-200" role="status">
          {approval.kind === "session" ? "The conversation waits for a person to allow its next turn." : "The run waits for a person to decide this call."}
        </p>
        <ApprovalDetail approval={approval} />
      </div>
    );
  }

  const edited = approval.editedArguments !== null && approval.editedArguments !== undefined;
  let outcome: string;
  switch (approval.status) {
    case "approved":
      outcome = `approved by ${who(approval.decidedBy)}${edited ? " with edited arguments" : ""}${approval.grantId ? " (and remembered)" : ""}`;
      break;
    case "rejected":
      outcome = `rejected by ${who(approval.decidedBy)}${approval.rationale ? `: ${approval.rationale}` : ""}`;
      break;
    case "withdrawn":
      outcome = "withdrawn: the run was cancelled";
      break;
    case "expired":
      outcome = "expired before anyone decided";
      break;
    default:
      outcome = approval.status;
  }
  return (
    <div className="mr-10 rounded-lg border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800" data-testid="approval-card" data-status={approval.status} data-approval-id={approval.id}>
      <p className="flex flex-wrap items-center gap-2">
        <Badge tone={approval.status === "approved" ? "success" : approval.status === "rejected" ? "danger" : "neutral"}>{approval.status}</Badge>
        <span className="break-all font-mono text-xs">{subject}</span>
        <span data-testid="approval-outcome">{outcome}</span>
      </p>
      {edited ? (
        <div className="mt-2">
          <ArgumentsDiff before={approval.arguments} after={approval.editedArguments} />
        </div>
      ) : null}
    </div>
  );
}
