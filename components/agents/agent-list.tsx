"use client";

/** `/agents`: the project's agents, searchable, with the "New agent" action. */
import Link from "next/link";
import { useState } from "react";
import { useCurrentProject } from "@/lib/client/current-project";
import { useAgents } from "@/lib/client/use-agents";
import { Badge, Button, EmptyState, ErrorBanner, PageHeader, SkeletonRows } from "@/components/ui";
import { inputClass } from "./fields";
import { useDebounced } from "./use-debounced";

export function AgentList() {
  const { projectId } = useCurrentProject();
  const [query, setQuery] = useState("");
  const q = useDebounced(query.trim(), 250);
  const agents = useAgents(projectId, { q: q || undefined });
  const rows = agents.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <div>
      <PageHeader
        title="Agents"
        description="Agent definitions of this project: instructions, parameters, tools and policies, versioned. Open one to edit it and save a new version."
        actions={
          <Button variant="primary" asChild>
            <Link href="/agents/new">New agent</Link>
          </Button>
        }
      />
      <div className="mb-4 max-w-md">
        <label htmlFor="agent-search" className="mb-1 block text-sm font-medium">
          Search agents
        </label>
        <input id="agent-search" type="search" className={inputClass} placeholder="id, name, description or tag" value={query} onChange={(e) => setQuery(e.target.value)} />
      </div>
      <ErrorBanner error={agents.error} title="Cannot list the agents" />
      {agents.isPending ? <SkeletonRows rows={5} label="Loading the agents" /> : null}
      {agents.data && rows.length === 0 ? (
        q ? (
          <EmptyState title={`No agent matches “${q}”`}>Try another word, or clear the search.</EmptyState>
        ) : (
          <EmptyState
            title="No agents yet"
            action={
              <Button variant="primary" asChild>
                <Link href="/agents/new">New agent</Link>
              </Button>
            }
          >
            Define one here, or register a definition with <code className="font-mono">POST /v1/agents</code>.
          </EmptyState>
        )
      ) : null}
      {rows.length ? (
        <div className="overflow-hidden rounded-lg border border-zinc-200 dark:border-zinc-800">
          <table className="w-full text-sm">
            <caption className="sr-only">Agents of this project</caption>
            <thead className="bg-zinc-50 text-left text-xs text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">Agent</th>
                <th scope="col" className="px-3 py-2 font-medium">Latest version</th>
                <th scope="col" className="px-3 py-2 font-medium">Description</th>
                <th scope="col" className="px-3 py-2 font-medium">Tags</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
              {rows.map((agent) => (
                <tr key={agent.agentId} className="hover:bg-zinc-50 dark:hover:bg-zinc-900">
                  <td className="px-3 py-2">
                    <Link href={`/agents/${encodeURIComponent(agent.agentId)}`} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
                      {agent.name}
                    </Link>
                    <div className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{agent.agentId}</div>
                  </td>
                  <td className="px-3 py-2 font-mono">{agent.latestVersion}</td>
                  <td className="max-w-md truncate px-3 py-2 text-zinc-700 dark:text-zinc-300" title={agent.description}>
                    {agent.description}
                  </td>
                  <td className="px-3 py-2">
                    <span className="flex flex-wrap gap-1">
                      {agent.tags.map((tag) => (
                        <Badge key={tag}>{tag}</Badge>
                      ))}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {agents.hasNextPage ? (
        <div className="mt-3">
          <Button onClick={() => agents.fetchNextPage()} disabled={agents.isFetchingNextPage}>
            {agents.isFetchingNextPage ? "Loading…" : "Show more"}
          </Button>
        </div>
      ) : null}
    </div>
  );
}
