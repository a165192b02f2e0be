"use client";
import Link from "next/link";
import { Suspense, type ReactNode } from "react";
import { ErrorBanner, Button, SkeletonRows, TooltipProvider, focusRing, cn } from "@/components/ui";
import { GlobalSearch } from "@/components/shell/global-search";
import { ProjectSwitcher } from "@/components/shell/project-switcher";
import { SideNav } from "@/components/shell/side-nav";
import { UserMenu } from "@/components/shell/user-menu";
import { CurrentProjectProvider, RequireProject } from "@/lib/client/current-project";
import { QueryProvider } from "@/lib/client/query-client";

/**
 * The console's frame: navigation on the left, the top bar (project switcher, search, the signed-in person), and the
 * page. Pages render once the current project is known.
 */
export function AppShell({ user, children }: { user: { name: string; email: string }; children: ReactNode }) {
  return (
    <QueryProvider>
      <TooltipProvider delayDuration={200}>
        <CurrentProjectProvider>
          <a href="#main" className={cn("sr-only rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-800 focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50", focusRing)}>
            Skip to content
          </a>
          <div className="flex min-h-screen">
            <aside className="sticky top-0 flex h-screen w-56 shrink-0 flex-col border-r border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
              <div className="flex h-14 items-center border-b border-zinc-200 px-4 dark:border-zinc-800">
                <Link href="/tools" className={cn("flex items-center gap-2 rounded text-sm font-semibold text-zinc-900 dark:text-zinc-50", focusRing)}>
                  <span aria-hidden="true" className="flex h-6 w-6 items-center justify-center rounded bg-indigo-600 text-xs font-bold text-white">
                    K
                  </span>
                  Kindgi Console
                </Link>
              </div>
              <SideNav />
            </aside>
            <div className="flex min-w-0 flex-1 flex-col">
              <header className="sticky top-0 z-30 flex h-14 items-center gap-4 border-b border-zinc-200 bg-white/95 px-6 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/95">
                <ProjectSwitcher />
                <div className="flex flex-1 justify-center">
                  <Suspense>
                    <GlobalSearch />
                  </Suspense>
                </div>
                <UserMenu name={user.name} email={user.email} />
              </header>
              <main id="main" tabIndex={-1} className="min-w-0 flex-1 px-8 py-6 focus:outline-none">
                <RequireProject
                  fallback={<SkeletonRows rows={6} label="Loading your projects" />}
                  renderError={(error, retry) => (
                    <ErrorBanner
                      title="Your projects could not be loaded"
                      error={error}
                      action={
                        <Button size="sm" onClick={retry}>
                          Retry
                        </Button>
                      }
                    />
                  )}
                >
                  {children}
                </RequireProject>
              </main>
            </div>
          </div>
        </CurrentProjectProvider>
      </TooltipProvider>
    </QueryProvider>
  );
}
