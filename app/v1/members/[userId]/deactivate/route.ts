import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { deactivateMemberOperation } from "@/lib/api/operations/members";
import { deactivateMember } from "@/lib/services/members";

export const dynamic = "force-dynamic";

// POST /v1/members/{userId}/deactivate – no more sign-in, keys revoked
export const POST = route(deactivateMemberOperation, async ({ actor, params }) => ok(await deactivateMember(actor, params.userId)));
