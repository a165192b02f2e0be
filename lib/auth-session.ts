import { getServerSession } from "next-auth";
import { authOptions } from "@/lib/auth";
import { sessionUserExists } from "@/lib/services/authenticate";
import { sessionSecretProblem } from "@/lib/secrets/session-secret";

export { sessionSecretProblem };

export type ConsoleUser = { id: string; tenantId: string; name: string; email: string };

/** The signed-in person of this request (server components), or null; the user must still exist. */
export async function currentConsoleUser(): Promise<ConsoleUser | null> {
  if (sessionSecretProblem()) return null;
  const session = await getServerSession(authOptions());
  const user = session?.user as { id?: unknown; tenantId?: unknown } | undefined;
  if (!user) return null;
  const found = await sessionUserExists(user.id, user.tenantId);
  return found ? { id: user.id as string, tenantId: user.tenantId as string, ...found } : null;
}
