"use client";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Badge, Button, ErrorBanner, PageHeader, Skeleton, cn, focusRing } from "@/components/ui";
import { useCurrentProject } from "@/lib/client/current-project";
import { useIdentity } from "@/lib/client/use-identity";
import { navItems } from "@/components/shell/nav-items";

/** The home page: who you are, the project you are in, and where to go. */
export function ConsoleHome() {
  const { projectId, projects } = useCurrentProject();
  const identity = useIdentity();
  const project = projects.find((item) => item.id === projectId)!;
  const [origin, setOrigin] = useState("http://localhost:3000");
  useEffect(() => setOrigin(window.location.origin), []);
  return (
    <div className="max-w-5xl">
      <PageHeader
        title="Home"
        description="Tools, agents and runs of the project chosen at the top. Everything here goes through the same /v1 API your clients use."
        actions={
          <Button asChild variant="primary">
            <Link href="/tools">Open the catalog</Link>
          </Button>
        }
      />
      <section aria-labelledby="home-you" className="mb-6 rounded-lg border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-900">
        <h2 id="home-you" className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">
          Your account
        </h2>
        {identity.isError ? (
          <ErrorBanner className="mt-3" error={identity.error} title="Your account could not be loaded" />
        ) : identity.isPending ? (
          <div role="status" className="mt-3 space-y-2">
            <span className="sr-only">Loading…</span>
            <Skeleton className="h-5 w-72" />
            <Skeleton className="h-5 w-96" />
          </div>
        ) : (
          <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1.5 text-sm">
            <dt className="text-zinc-600 dark:text-zinc-400">Signed in as</dt>
            <dd className="text-zinc-900 dark:text-zinc-100">
              {identity.data.user.name} · {identity.data.user.email} <Badge tone="accent">{identity.data.user.role}</Badge>
            </dd>
            <dt className="text-zinc-600 dark:text-zinc-400">Tenant</dt>
            <dd className="text-zinc-900 dark:text-zinc-100">{identity.data.tenant.name}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">Project</dt>
            <dd className="text-zinc-900 dark:text-zinc-100">
              {project.name} {project.isDefault && <Badge>default</Badge>} <code className="ml-1 font-mono text-xs text-zinc-600 dark:text-zinc-400">{project.id}</code>
            </dd>
          </dl>
        )}
      </section>
      <h2 className="mb-3 text-sm font-semibold text-zinc-900 dark:text-zinc-100">Sections</h2>
      <ul className="grid grid-cols-3 gap-3">
        {navItems.map((item) => (
          <li key={item.label}>
            {item.href ? (
              <Link href={item.href} className={cn("block h-full rounded-lg border border-zinc-200 bg-white p-4 hover:border-indigo-400 hover:bg-indigo-50/40 dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-indigo-500", focusRing)}>
                <span className="block text-sm font-semibold text-zinc-900 dark:text-zinc-100">{item.label}</span>
                <span className="mt-1 block text-sm text-zinc-600 dark:text-zinc-400">{item.description}</span>
              </Link>
            ) : (
              <div className="h-full rounded-lg border border-dashed border-zinc-300 p-4 dark:border-zinc-700">
                <span className="flex items-center gap-2 text-sm font-semibold text-zinc-700 dark:text-zinc-300">
                  {item.label} <Badge>not available yet</Badge>
                </span>
                <span className="mt-1 block text-sm text-zinc-600 dark:text-zinc-400">{item.description}</span>
              </div>
            )}
          </li>
        ))}
      </ul>
      <section aria-labelledby="home-api" className="mt-6">
        <h2 id="home-api" className="mb-2 text-sm font-semibold text-zinc-900 dark:text-zinc-100">
          From a terminal
        </h2>
        <pre className="overflow-x-auto rounded-lg bg-zinc-900 p-4 font-mono text-xs leading-relaxed text-zinc-100 dark:bg-black">
          {`curl -H "Authorization: Bearer $KINDGI_API_KEY" "${origin}/v1/tools?projectId=${project.id}"`}
        </pre>
      </section>
    </div>
  );
}
