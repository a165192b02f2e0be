import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { completeApprovalOperation } from "@/lib/api/operations/approvals";
import { completeApproval, type CompleteApprovalInput } from "@/lib/services/approvals";

export const dynamic = "force-dynamic";

// POST /v1/approvals/{approvalId}/complete – approve (edited, remembered), reject or withdraw
export const POST = route(completeApprovalOperation, async ({ actor, params, body }) => ok(await completeApproval(actor, params.approvalId, body as CompleteApprovalInput)));
