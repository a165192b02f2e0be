"use client";

/** `/runs`: the project's runs, filtered by status, agent, conversation and what started them, live while any is in flight. */
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { Button, EmptyState, ErrorBanner, Input, Label, PageHeader, Select, SkeletonRows } from "@/components/ui";
import { useCurrentProject } from "@/lib/client/current-project";
import { useAgents } from "@/lib/client/use-agents";
import { useRuns, type RunListFilters } from "@/lib/client/use-runs";
import { isActiveStatus, originWords, RUN_ORIGIN_OPTIONS, RUN_STATUS_OPTIONS } from "@/lib/client/run-types";
import { formatMs } from "@/lib/client/timeline";
import { RunCharts } from "./run-charts";
import { formatCost, formatTime, RunStatusBadge, runDurationMs, shortId } from "./run-bits";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function RunList() {
  const { projectId } = useCurrentProject();
  const router = useRouter();
  const search = useSearchParams();
  const filters: RunListFilters = {
    status: search.get("status") || undefined,
    agentId: search.get("agentId") || undefined,
    conversationId: search.get("conversationId") || undefined,
    origin: search.get("origin") || undefined,
  };
  const pending = useRef<string | null>(null);
  useEffect(() => {
    pending.current = null;
  }, [search]);
  const [conversationDraft, setConversationDraft] = useState(filters.conversationId ?? "");
  const conversationInvalid = conversationDraft !== "" && !UUID.test(conversationDraft.trim());
  const setFilter = (name: keyof RunListFilters, value: string) => {
    // Two filters changed in a row both stay: the second builds on the first even before the URL shows it.
    const params = new URLSearchParams(pending.current ?? search.toString());
    if (value) params.set(name, value);
    else params.delete(name);
    pending.current = params.toString();
    router.replace(`/runs${params.toString() ? `?${params}` : ""}`);
  };
  const agents = useAgents(projectId);
  const runs = useRuns(projectId, filters);
  const rows = runs.data?.pages.flatMap((page) => page.data) ?? [];
  const live = rows.some((run) => isActiveStatus(run.status));
  const filtered = Object.values(filters).some(Boolean);
  return (
    <div>
      <PageHeader
        title="Runs"
        description="What agents did, newest first: status, who or what started each run, how long it took and what it cost. Open one for its timeline."
        actions={
          <Button variant="primary" asChild>
            <Link href="/playground">Start a run</Link>
          </Button>
        }
      />
      <RunCharts projectId={projectId} />
      <form className="mb-4 grid grid-cols-4 gap-3" role="search" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <div>
          <Label htmlFor="runs-status">Status</Label>
          <Select id="runs-status" className="mt-1" value={filters.status ?? ""} onChange={(e) => setFilter("status", e.target.value)}>
            <option value="">Any status</option>
            {RUN_STATUS_OPTIONS.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <Label htmlFor="runs-agent">Agent</Label>
          <Select id="runs-agent" className="mt-1" value={filters.agentId ?? ""} onChange={(e) => setFilter("agentId", e.target.value)}>
            <option value="">Any agent</option>
            {(agents.data?.pages.flatMap((page) => page.data) ?? []).map((agent) => (
              <option key={agent.agentId} value={agent.agentId}>
                {agent.name} ({agent.agentId})
              </option>
            ))}
            {filters.agentId && !agents.data?.pages.some((page) => page.data.some((agent) => agent.agentId === filters.agentId)) ? <option value={filters.agentId}>{filters.agentId}</option> : null}
          </Select>
        </div>
        <div>
          <Label htmlFor="runs-origin">Started by</Label>
          <Select id="runs-origin" className="mt-1" value={filters.origin ?? ""} onChange={(e) => setFilter("origin", e.target.value)}>
            <option value="">Anything</option>
            {RUN_ORIGIN_OPTIONS.map((kind) => (
              <option key={kind} value={kind}>
                {originWords({ kind, userId: "" })}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <Label htmlFor="runs-conversation">Conversation id</Label>
          <Input
            id="runs-conversation"
            className="mt-1 font-mono"
            placeholder="UUID, then Enter"
            value={conversationDraft}
            aria-invalid={conversationInvalid || undefined}
            aria-describedby={conversationInvalid ? "runs-conversation-error" : undefined}
            onChange={(e) => setConversationDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !conversationInvalid) setFilter("conversationId", conversationDraft.trim());
            }}
            onBlur={() => !conversationInvalid && setFilter("conversationId", conversationDraft.trim())}
          />
          {conversationInvalid ? (
            <p id="runs-conversation-error" className="mt-1 text-xs text-red-700 dark:text-red-300">
              A conversation id is a UUID.
            </p>
          ) : null}
        </div>
      </form>
      <div className="mb-2 flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
        {live ? (
          <>
            <span aria-hidden="true" className="h-2 w-2 animate-pulse rounded-full bg-emerald-500" /> Live: refreshing while runs are in flight
          </>
        ) : rows.length ? (
          `${rows.length}${runs.hasNextPage ? "+" : ""} run${rows.length === 1 ? "" : "s"}`
        ) : null}
      </div>
      <ErrorBanner error={runs.error} title="Cannot list the runs" />
      {runs.isPending ? <SkeletonRows rows={6} label="Loading the runs" /> : null}
      {runs.data && rows.length === 0 ? (
        filtered ? (
          <EmptyState title="No run matches these filters" action={<Button onClick={() => {
              pending.current = "";
              router.replace("/runs");
            }}>Clear the filters</Button>}>
            Change a filter, or clear them all.
          </EmptyState>
        ) : (
          <EmptyState
            title="No runs yet"
            action={
              <Button variant="primary" asChild>
                <Link href="/playground">Open the playground</Link>
              </Button>
            }
          >
            Talk to an agent in the playground, or start a run with <code className="font-mono">POST /v1/runs</code>.
          </EmptyState>
        )
      ) : null}
      {rows.length ? (
        <div className="overflow-hidden rounded-lg border border-zinc-200 dark:border-zinc-800">
          <table className="w-full text-sm">
            <caption className="sr-only">Runs of this project, newest first</caption>
            <thead className="bg-zinc-50 text-left text-xs text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">Run</th>
                <th scope="col" className="px-3 py-2 font-medium">Agent or tool</th>
                <th scope="col" className="px-3 py-2 font-medium">Status</th>
                <th scope="col" className="px-3 py-2 font-medium">Started by</th>
                <th scope="col" className="px-3 py-2 font-medium">Created</th>
                <th scope="col" className="px-3 py-2 text-right font-medium">Duration</th>
                <th scope="col" className="px-3 py-2 text-right font-medium">Tokens</th>
                <th scope="col" className="px-3 py-2 text-right font-medium">Cost</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
              {rows.map((run) => {
                const duration = runDurationMs(run);
                return (
                  <tr key={run.id} className="hover:bg-zinc-50 dark:hover:bg-zinc-900" data-run-id={run.id}>
                    <td className="px-3 py-2">
                      <Link href={`/runs/${run.id}`} className="font-mono font-medium text-indigo-700 hover:underline dark:text-indigo-300" aria-label={`Run ${run.id}`}>
                        {shortId(run.id)}
                      </Link>
                    </td>
                    <td className="px-3 py-2">
                      {run.agent ? (
                        <span className="font-mono text-xs">
                          {run.agent.id}@{run.agent.version}
                        </span>
                      ) : run.tool ? (
                        <span className="font-mono text-xs">
                          tool {run.tool.id}@{run.tool.version}
                        </span>
                      ) : null}
                      {run.kind === "agent-turn" && run.input.userMessage ? <div className="max-w-xs truncate text-xs text-zinc-600 dark:text-zinc-400" title={run.input.userMessage}>{run.input.userMessage}</div> : null}
                    </td>
                    <td className="px-3 py-2">
                      <RunStatusBadge status={run.status} />
                      {run.failure ? <div className="font-mono text-xs text-red-700 dark:text-red-300">{run.failure.code}</div> : null}
                    </td>
                    <td className="px-3 py-2 text-zinc-700 dark:text-zinc-300">{originWords(run.origin)}</td>
                    <td className="px-3 py-2 whitespace-nowrap text-zinc-700 dark:text-zinc-300">{formatTime(run.createdAt)}</td>
                    <td className="px-3 py-2 text-right font-mono text-xs whitespace-nowrap">{duration === null ? "…" : formatMs(duration)}</td>
                    <td className="px-3 py-2 text-right font-mono text-xs">{run.usage.inputTokens + run.usage.outputTokens}</td>
                    <td className="px-3 py-2 text-right font-mono text-xs">{formatCost(run.costUsd)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {runs.hasNextPage ? (
        <div className="mt-3">
          <Button onClick={() => runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
            {runs.isFetchingNextPage ? "Loading…" : "Show more"}
          </Button>
        </div>
      ) : null}
    </div>
  );
}
