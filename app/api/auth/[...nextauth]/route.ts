import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth";
import { sessionSecretProblem } from "@/lib/secrets/session-secret";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

// GET, POST /api/auth/* – console sign-in, sign-out and session (next-auth)
async function handler(request: Request, context: Context): Promise<Response> {
  const problem = sessionSecretProblem();
  if (problem) return Response.json({ error: { code: "sign-in-unavailable", message: `console sign-in is off on this server: ${problem}` } }, { status: 503, headers: { "Cache-Control": "no-store" } });
  return NextAuth(authOptions())(request, context);
}

export { handler as GET, handler as POST };
