import Link from "next/link";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { TooltipProvider } from "@/components/ui";
import { currentConsoleUser } from "@/lib/auth-session";
import { CONSOLE_PATH_HEADER } from "@/lib/client/console-path";
import { QueryProvider } from "@/lib/client/query-client";

export const dynamic = "force-dynamic";

/**
 * A narrow frame for one-thing pages opened from a link (an approval from a notification): a session is needed, as
 * for the console, but there is no side navigation, so the page works on a phone-sized screen.
 */
export default async function FocusedLayout({ children }: { children: ReactNode }) {
  const user = await currentConsoleUser();
  if (!user) {
    const here = (await headers()).get(CONSOLE_PATH_HEADER) ?? "/approvals";
    redirect(`/sign-in?callbackUrl=${encodeURIComponent(here)}`);
  }
  return (
    <QueryProvider>
      <TooltipProvider delayDuration={200}>
        <header className="flex h-12 items-center justify-between border-b border-zinc-200 bg-white px-4 dark:border-zinc-800 dark:bg-zinc-900">
          <Link href="/approvals" className="flex items-center gap-2 text-sm font-semibold text-zinc-900 dark:text-zinc-50">
            <span aria-hidden="true" className="flex h-6 w-6 items-center justify-center rounded bg-indigo-600 text-xs font-bold text-white">K</span>
            Kindgi Console
          </Link>
          <span className="truncate pl-2 text-xs text-zinc-600 dark:text-zinc-400">{user.name}</span>
        </header>
        <main id="main" className="min-w-0 px-4 py-4 sm:px-8">{children}</main>
      </TooltipProvider>
    </QueryProvider>
  );
}
