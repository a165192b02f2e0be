import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { reactivateMemberOperation } from "@/lib/api/operations/members";
import { reactivateMember } from "@/lib/services/members";

export const dynamic = "force-dynamic";

// POST /v1/members/{userId}/reactivate – may sign in again
export const POST = route(reactivateMemberOperation, async ({ actor, params }) => ok(await reactivateMember(actor, params.userId)));
