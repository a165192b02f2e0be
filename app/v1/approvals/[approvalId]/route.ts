import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { getApprovalOperation } from "@/lib/api/operations/approvals";
import { getApproval } from "@/lib/services/approvals";

export const dynamic = "force-dynamic";

// GET /v1/approvals/{approvalId} – the call, its arguments, effects, origin, expiry and decision
export const GET = route(getApprovalOperation, async ({ actor, params }) => ok(await getApproval(actor, params.approvalId)));
