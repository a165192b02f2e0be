import { redirect } from "next/navigation";
import { SignInForm } from "@/components/shell/sign-in-form";
import { currentConsoleUser, sessionSecretProblem } from "@/lib/auth-session";
import { safeCallbackUrl } from "@/lib/client/callback-url";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Kindgi Console" };

// /sign-in – email and password; back to `callbackUrl` afterwards
export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(typeof params.callbackUrl === "string" ? params.callbackUrl : undefined, "/");
  if (await currentConsoleUser()) redirect(callbackUrl);
  return <SignInForm callbackUrl={callbackUrl} signedOut={params.signedOut === "1"} unavailable={sessionSecretProblem()} />;
}
