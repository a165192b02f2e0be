import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { setMemberRoleOperation } from "@/lib/api/operations/members";
import { setMemberRole, type MemberRole } from "@/lib/services/members";

export const dynamic = "force-dynamic";

// POST /v1/members/{userId}/role – change a member's role
export const POST = route(setMemberRoleOperation, async ({ actor, params, body }) => ok(await setMemberRole(actor, params.userId, (body as { role: MemberRole }).role)));
