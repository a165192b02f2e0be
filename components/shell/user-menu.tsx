"use client";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { Button, Spinner } from "@/components/ui";
import { markSigningOut } from "@/lib/client/query-client";

/** The signed-in person and the way out. */
export function UserMenu({ name, email }: { name: string; email: string }) {
  const [leaving, setLeaving] = useState(false);
  return (
    <div className="flex items-center gap-3">
      <div className="hidden text-right leading-tight sm:block">
        <p className="text-sm font-medium text-zinc-900 dark:text-zinc-100">{name}</p>
        <p className="text-xs text-zinc-600 dark:text-zinc-400">{email}</p>
      </div>
      <Button
        size="sm"
        disabled={leaving}
        onClick={() => {
          setLeaving(true);
          markSigningOut();
          void signOut({ callbackUrl: "/sign-in?signedOut=1" });
        }}
      >
        {leaving && <Spinner />}
        Sign out
      </Button>
    </div>
  );
}
