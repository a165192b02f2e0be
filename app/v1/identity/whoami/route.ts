import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { whoamiOperation } from "@/lib/api/operations/identity";
import { whoami } from "@/lib/services/tokens";

export const dynamic = "force-dynamic";

// GET /v1/identity/whoami – who the credential acts for
export const GET = route(whoamiOperation, async ({ actor }) => ok(await whoami(actor)));
