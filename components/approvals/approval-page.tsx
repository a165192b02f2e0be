"use client";
import Link from "next/link";
import { ApprovalDetail } from "@/components/approvals/approval-detail";
import { LiveIndicator } from "@/components/approvals/approval-inbox";
import { Button, ErrorBanner, PageHeader, SkeletonRows } from "@/components/ui";
import { useApproval, useApprovalStream } from "@/lib/client/use-approvals";

/** /approvals/{approvalId}: one approval with its actions; the page the notifications link to, usable on a phone. */
export function ApprovalPage({ approvalId }: { approvalId: string }) {
  const approval = useApproval(approvalId);
  const { live } = useApprovalStream();
  return (
    <div className="mx-auto max-w-3xl">
      <PageHeader title="Approval" description={<Link href="/approvals" className="text-indigo-700 hover:underline dark:text-indigo-300">All pending approvals</Link>} actions={<LiveIndicator live={live} />} />
      {approval.isPending ? <SkeletonRows rows={4} label="Loading the approval" /> : null}
      {approval.isError ? <ErrorBanner error={approval.error} title="Cannot load this approval" action={<Button size="sm" onClick={() => approval.refetch()}>Retry</Button>} /> : null}
      {approval.data ? (
        <div className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
          <ApprovalDetail approval={approval.data} compact />
        </div>
      ) : null}
    </div>
  );
}
