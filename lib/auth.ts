import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { sessionSecret } from "@/lib/secrets/session-secret";
import { verifySignIn } from "@/lib/services/authenticate";

/** How long a console session lasts after sign-in; KINDGI_SESSION_MAX_AGE_SECONDS (default 12 hours). */
export function sessionMaxAgeSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.KINDGI_SESSION_MAX_AGE_SECONDS;
  if (raw === undefined || raw.trim() === "") return 12 * 60 * 60;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 60) throw new Error("KINDGI_SESSION_MAX_AGE_SECONDS must be a whole number of seconds, at least 60");
  return value;
}

let options: NextAuthOptions | undefined;

/**
 * next-auth (v4) for the console: a credentials sign-in against the tenant's users, JWT sessions that carry the
 * user and tenant id and expire after `sessionMaxAgeSeconds()`. Built on first use so that `next build` reads no
 * key. Without NEXTAUTH_URL, the origin is the one the request came to (AUTH_TRUST_HOST), so sign-in works on any
 * host and port the server is started on.
 */
export function authOptions(): NextAuthOptions {
  if (options) return options;
  if (!process.env.NEXTAUTH_URL && process.env.AUTH_TRUST_HOST === undefined) process.env.AUTH_TRUST_HOST = "true";
  const maxAge = sessionMaxAgeSeconds();
  options = {
    secret: sessionSecret(),
    session: { strategy: "jwt", maxAge },
    jwt: { maxAge },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    providers: [
      CredentialsProvider({
        name: "email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          const user = await verifySignIn(credentials?.email ?? "", credentials?.password ?? "");
          return user ? { id: user.id, email: user.email, name: user.name, tenantId: user.tenantId } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.userId = user.id;
          token.tenantId = (user as { tenantId?: string }).tenantId;
        }
        return token;
      },
      session({ session, token }) {
        if (session.user) Object.assign(session.user, { id: token.userId, tenantId: token.tenantId });
        return session;
      },
    },
  };
  return options;
}
