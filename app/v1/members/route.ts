import { route } from "@/lib/api/route";
import { created, ok } from "@/lib/api/respond";
import { pageParams } from "@/lib/api/operations/common";
import { inviteMemberOperation, listMembersOperation } from "@/lib/api/operations/members";
import { inviteMember, listMembers, type InviteMemberInput } from "@/lib/services/members";

export const dynamic = "force-dynamic";

// POST /v1/members – invite a person with an initial password
export const POST = route(inviteMemberOperation, async ({ actor, body }) => created(await inviteMember(actor, body as InviteMemberInput)));

// GET /v1/members – the tenant's members
export const GET = route(listMembersOperation, async ({ actor, query }) => ok(await listMembers(actor, pageParams(query))));
