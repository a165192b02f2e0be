import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { revokeTokenOperation } from "@/lib/api/operations/identity";
import { revokeToken } from "@/lib/services/tokens";

export const dynamic = "force-dynamic";

// POST /v1/tokens/{tokenId}/revoke – revoke an API key
export const POST = route(revokeTokenOperation, async ({ actor, params }) => ok(await revokeToken(actor, params.tokenId)));
