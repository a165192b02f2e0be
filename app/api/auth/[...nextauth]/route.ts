import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

// GET, POST /api/auth/* – console sign-in, sign-out and session (next-auth)
const handler = (request: Request, context: Context) => NextAuth(authOptions())(request, context);

export { handler as GET, handler as POST };
