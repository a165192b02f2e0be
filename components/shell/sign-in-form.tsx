"use client";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { Button, Field, Input, Spinner } from "@/components/ui";

/** The sign-in card: email and password of a console user (the first admin's are printed on first start). */
export function SignInForm({ callbackUrl, signedOut, unavailable }: { callbackUrl: string; signedOut?: boolean; unavailable?: string | null }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      const result = await signIn("credentials", { email, password, redirect: false, callbackUrl });
      if (result?.ok && !result.error) {
        // A full load, so the console renders with the new session cookie.
        window.location.assign(callbackUrl);
        return;
      }
      setError(result?.error === "CredentialsSignin" ? "The email or password is wrong." : "Signing in failed; try again.");
    } catch {
      setError("The server could not be reached; try again.");
    }
    setPending(false);
  }

  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 px-4 dark:bg-zinc-950">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2">
          <span aria-hidden="true" className="flex h-8 w-8 items-center justify-center rounded-md bg-indigo-600 text-sm font-bold text-white">
            K
          </span>
          <span className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">Kindgi Console</span>
        </div>
        <form onSubmit={submit} noValidate className="rounded-lg border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900" aria-describedby={error ? "sign-in-error" : undefined}>
          <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Sign in</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Use your console account. The first admin&apos;s email and password are printed when the server starts for the first time.</p>
          {signedOut && !error && (
            <p role="status" className="mt-4 rounded-md bg-zinc-100 px-3 py-2 text-sm text-zinc-700 dark:bg-zinc-800 dark:text-zinc-200">
              You are signed out.
            </p>
          )}
          {unavailable && (
            <p role="alert" className="mt-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
              Sign-in is off on this server: {unavailable}
            </p>
          )}
          {error && (
            <p id="sign-in-error" role="alert" className="mt-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
              {error}
            </p>
          )}
          <div className="mt-5 space-y-4">
            <Field id="sign-in-email" label="Email">
              {(props) => <Input {...props} type="email" name="email" autoComplete="username" required autoFocus value={email} onChange={(event) => setEmail(event.target.value)} />}
            </Field>
            <Field id="sign-in-password" label="Password">
              {(props) => <Input {...props} type="password" name="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />}
            </Field>
          </div>
          <Button type="submit" variant="primary" className="mt-6 w-full justify-center" disabled={pending || !email || !password || Boolean(unavailable)}>
            {pending && <Spinner />}
            {pending ? "Signing in…" : "Sign in"}
          </Button>
        </form>
      </div>
    </main>
  );
}
