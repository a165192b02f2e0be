import { route } from "@/lib/api/route";
import { ok } from "@/lib/api/respond";
import { deleteSecretOperation } from "@/lib/api/operations/secrets";
import { deleteSecret } from "@/lib/services/secrets";

export const dynamic = "force-dynamic";

// DELETE /v1/secrets/{name} – delete every version of a secret
export const DELETE = route(deleteSecretOperation, async ({ actor, params }) => ok(await deleteSecret(actor, params.name)));
