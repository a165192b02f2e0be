import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AppShell } from "@/components/shell/app-shell";
import { currentConsoleUser } from "@/lib/auth-session";
import { CONSOLE_PATH_HEADER } from "@/lib/client/console-path";

export const dynamic = "force-dynamic";

/** Every console page needs a session; without one the person signs in and comes back to the page. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await currentConsoleUser();
  if (!user) {
    const here = (await headers()).get(CONSOLE_PATH_HEADER) ?? "/tools";
    redirect(`/sign-in?callbackUrl=${encodeURIComponent(here)}`);
  }
  return <AppShell user={{ name: user.name, email: user.email }}>{children}</AppShell>;
}
