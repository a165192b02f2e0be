import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { revokeGrantOperation } from "@/lib/api/operations/approvals";
import { revokeGrant } from "@/lib/services/approvals";

export const dynamic = "force-dynamic";

// POST /v1/approval-grants/{grantId}/revoke – later calls ask again
export const POST = route(revokeGrantOperation, async ({ actor, params }) => ok(await revokeGrant(actor, params.grantId)));
