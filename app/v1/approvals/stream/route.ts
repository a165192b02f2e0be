import { route } from "@/lib/api/route";
import { approvalEventStream, seqFromApprovalEventId } from "@/lib/api/approval-stream";
import { streamApprovalsOperation } from "@/lib/api/operations/approvals";
import { latestApprovalSeq, watchApprovals } from "@/lib/services/approvals";

export const dynamic = "force-dynamic";

// GET /v1/approvals/stream – created and decided approvals as server-sent events, resumable with Last-Event-ID
export const GET = route(streamApprovalsOperation, async ({ actor, query, request }) => {
  const since = seqFromApprovalEventId(request.headers.get("last-event-id")) ?? (query.since as number | undefined) ?? (await latestApprovalSeq(actor));
  const events = watchApprovals(actor, since, request.signal);
  await events.next();
  return approvalEventStream(events, request.signal);
});
