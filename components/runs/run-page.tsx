"use client";

/**
 * `/runs/{runId}`: the timeline, the step list with each event's details, usage and cost, versions, instructions,
 * failure. A run in flight is followed on its stream: journal events land as they are written, and the model call
 * being written shows its text as it comes (a row of its own and an open bar on the timeline) until the journal's
 * model call replaces it.
 */
import Link from "next/link";
import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { JsonTree } from "@/components/catalog/json-view";
import { Badge, Button, ErrorBanner, PageHeader, Skeleton, SkeletonRows, Spinner } from "@/components/ui";
import { failureSentence } from "@/lib/client/run-failures";
import { isDevProvider, isTerminalStatus, originWords, type Run, type RunEvent } from "@/lib/client/run-types";
import { formatMs } from "@/lib/client/timeline";
import { isStopped, writingCall } from "@/lib/client/live-answer";
import { runKeys } from "@/lib/client/query-keys";
import { mergeRunEvents, useCancelRun, useRun, useRunJournal, useRunStream } from "@/lib/client/use-runs";
import { EventItem } from "./event-item";
import { LiveModelCallItem } from "./live-call";
import { RunTimeline } from "./run-timeline";
import { formatCost, formatTime, RunStatusBadge, runDurationMs, shortId } from "./run-bits";

export function RunPage({ runId }: { runId: string }) {
  const run = useRun(runId);
  const live = Boolean(run.data && !isTerminalStatus(run.data.status));
  // A run seen in flight is followed on its stream until its end (the stream closes itself after the terminal event).
  const [follow, setFollow] = useState(false);
  if (live && !follow) setFollow(true);
  const stream = useRunStream(follow ? runId : null);
  // The journal is polled only while the stream is not connected.
  const journal = useRunJournal(runId, live && !stream.connected);
  const client = useQueryClient();
  useEffect(() => {
    if (stream.events.length) client.setQueryData(runKeys.journal(runId), (cached: RunEvent[] | undefined) => mergeRunEvents(cached, stream.events));
  }, [client, runId, stream.events]);
  const cancel = useCancelRun();
  const [selected, setSelected] = useState<number | null>(null);
  if (run.isPending)
    return (
      <div>
        <PageHeader title={`Run ${shortId(runId)}`} description="Loading the run…" />
        <Skeleton className="mb-4 h-40 w-full" />
        <SkeletonRows rows={6} label="Loading the run" />
      </div>
    );
  if (run.error)
    return (
      <div>
        <PageHeader title={`Run ${shortId(runId)}`} />
        <ErrorBanner error={run.error} title="Cannot load this run" action={<Button size="sm" onClick={() => run.refetch()}>Retry</Button>} />
        <p className="mt-4 text-sm">
          <Link href="/runs" className="text-indigo-700 hover:underline dark:text-indigo-300">
            Back to the runs
          </Link>
        </p>
      </div>
    );
  const data = run.data;
  const events = journal.data ?? [];
  const dev = isDevProvider(data.provider?.id);
  const turnStarted = events.find((event) => event.type === "turn-started");
  const startedAt = events.length ? Date.parse(events[0].createdAt) : undefined;
  const selectEvent = (seq: number) => {
    setSelected(seq);
    document.getElementById(`event-${seq}`)?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  };
  const writing = writingCall(stream.answer);
  const stopped = isStopped(stream.answer);
  // The call in flight, unless the journal the page shows already holds its answer.
  const inFlight = writing && !events.some((event) => event.type === "model-called" && Number(event.data.index) === writing.callIndex) ? writing : null;
  return (
    <div>
      <PageHeader
        title={
          <span className="flex items-center gap-3">
            Run <span className="font-mono">{shortId(data.id)}</span> <RunStatusBadge status={data.status} />
          </span>
        }
        description={
          <>
            {data.agent ? (
              <>
                Agent{" "}
                <Link className="font-mono text-indigo-700 hover:underline dark:text-indigo-300" href={`/agents/${encodeURIComponent(data.agent.id)}`}>
                  {data.agent.id}@{data.agent.version}
                </Link>
              </>
            ) : data.tool ? (
              <>
                Tool{" "}
                <Link className="font-mono text-indigo-700 hover:underline dark:text-indigo-300" href={`/tools/${encodeURIComponent(data.tool.id)}`}>
                  {data.tool.id}@{data.tool.version}
                </Link>
              </>
            ) : null}
            {" · started by "}
            {originWords(data.origin)} · {formatTime(data.createdAt)}
            {data.conversationId ? (
              <>
                {" · "}
                <Link className="text-indigo-700 underline dark:text-indigo-300" href={`/runs?conversationId=${data.conversationId}`}>
                  conversation {shortId(data.conversationId)}
                </Link>
              </>
            ) : null}
            <span className="sr-only"> · run id {data.id}</span>
          </>
        }
        actions={
          <>
            {data.agent ? (
              <Button asChild>
                <Link href={`/playground?agent=${encodeURIComponent(data.agent.id)}&version=${encodeURIComponent(data.agent.version)}${data.conversationId ? `&conversation=${data.conversationId}` : ""}`}>Open in playground</Link>
              </Button>
            ) : null}
            {live ? (
              <Button variant="danger" onClick={() => cancel.mutate(data.id)} disabled={cancel.isPending}>
                {cancel.isPending ? <Spinner /> : null}
                Cancel run
              </Button>
            ) : null}
          </>
        }
      />
      <ErrorBanner className="mb-4" error={cancel.error} title="Cannot cancel the run" />
      {data.failure ? <FailureBox failure={data.failure} /> : null}
      <ErrorBanner className="mb-4" error={journal.error} title="Cannot read the run's journal" />
      {journal.isPending ? (
        <Skeleton className="mb-4 h-40 w-full" />
      ) : (
        <RunTimeline events={events} live={live} selectedSeq={selected} onSelect={selectEvent} writing={inFlight && !stopped ? inFlight : null} onSelectWriting={() => document.getElementById("live-model-call")?.scrollIntoView({ block: "nearest", behavior: "smooth" })} />
      )}
      <div className="mt-6 grid grid-cols-[minmax(0,1fr)_22rem] gap-6">
        <section aria-labelledby="steps-title">
          <h2 id="steps-title" className="mb-2 text-base font-semibold text-zinc-900 dark:text-zinc-100">
            Steps <span className="text-sm font-normal text-zinc-600 dark:text-zinc-400">({events.length} events{live ? ", live" : ""})</span>
          </h2>
          {journal.isPending ? <SkeletonRows rows={5} label="Loading the steps" /> : null}
          <ol className="space-y-2" aria-label="Journal events">
            {events.map((event) => (
              <EventItem key={event.seq} event={event} devProvider={dev} selected={selected === event.seq} onSelect={() => setSelected(event.seq)} startedAt={startedAt} />
            ))}
            {inFlight ? <LiveModelCallItem id="live-model-call" call={inFlight} stopped={stopped} endedAs={stream.answer.ended} /> : null}
          </ol>
          <p className="sr-only" aria-live="polite" aria-atomic="true">
            {inFlight && !stopped ? `Model call ${inFlight.callIndex + 1} is being written.` : ""}
          </p>
        </section>
        <aside className="space-y-4" aria-label="Run summary">
          <UsageCard run={data} />
          <Card title="Model">
            {data.provider ? (
              <p className="text-sm">
                <span className="font-mono">{data.provider.id}</span> · <span className="font-mono">{data.provider.model}</span>
                {dev ? (
                  <Badge tone="warning" className="ml-2">
                    not a real model
                  </Badge>
                ) : null}
              </p>
            ) : (
              <p className="text-sm text-zinc-600 dark:text-zinc-400">{data.kind === "tool-invocation" ? "A tool invocation calls no model." : "Not chosen yet."}</p>
            )}
            {turnStarted ? <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{String((turnStarted.data.provider as { reason?: string } | undefined)?.reason ?? "")}</p> : null}
          </Card>
          <Card title="Resolved tool versions">
            {data.resolvedTools?.length ? (
              <table className="w-full text-xs">
                <caption className="sr-only">Tool ranges and the versions they resolved to</caption>
                <thead className="text-left text-zinc-600 dark:text-zinc-400">
                  <tr>
                    <th scope="col" className="py-1 font-medium">Tool</th>
                    <th scope="col" className="py-1 font-medium">Range</th>
                    <th scope="col" className="py-1 font-medium">Version</th>
                  </tr>
                </thead>
                <tbody className="font-mono">
                  {data.resolvedTools.map((tool) => (
                    <tr key={tool.id}>
                      <td className="py-0.5 pr-2 break-all">
                        <Link href={`/tools/${encodeURIComponent(tool.id)}`} className="text-indigo-700 hover:underline dark:text-indigo-300">
                          {tool.id}
                        </Link>
                      </td>
                      <td className="py-0.5 pr-2">{tool.range}</td>
                      <td className="py-0.5">{tool.version}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="text-sm text-zinc-600 dark:text-zinc-400">{data.tool ? `${data.tool.id}@${data.tool.version}` : "No tools."}</p>
            )}
          </Card>
          <Card title="Input">
            {data.input.userMessage !== undefined ? <p className="text-sm whitespace-pre-wrap">{data.input.userMessage}</p> : null}
            <div className="mt-1 text-xs">
              <JsonTree value={data.input.parameters ?? data.input.arguments ?? {}} />
            </div>
          </Card>
          {turnStarted ? (
            <Card title="Rendered instructions">
              <pre className="max-h-64 overflow-auto font-mono text-xs whitespace-pre-wrap text-zinc-800 dark:text-zinc-200" data-testid="rendered-instructions">
                {String(turnStarted.data.instructions ?? "")}
              </pre>
            </Card>
          ) : null}
          {data.status === "completed" ? (
            <Card title="Output">
              {typeof data.output === "string" ? <p className="text-sm whitespace-pre-wrap">{data.output}</p> : <JsonTree value={data.output} />}
              {dev ? <Badge tone="warning" className="mt-2">not from a real model</Badge> : null}
            </Card>
          ) : null}
        </aside>
      </div>
    </div>
  );
}

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <h2 className="mb-2 text-sm font-semibold text-zinc-900 dark:text-zinc-100">{title}</h2>
      {children}
    </section>
  );
}

function UsageCard({ run }: { run: Run }) {
  const duration = runDurationMs(run);
  const rows: [string, string][] = [
    ["Duration", duration === null ? "running…" : formatMs(duration)],
    ["Model calls", String(run.usage.modelCalls)],
    ["Tool calls", String(run.usage.toolCalls)],
    ["Input tokens", String(run.usage.inputTokens)],
    ["Output tokens", String(run.usage.outputTokens)],
    ["Cost", formatCost(run.costUsd)],
  ];
  return (
    <Card title="Usage and cost">
      <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-zinc-600 dark:text-zinc-400">{label}</dt>
            <dd className="text-right font-mono">{value}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

export function FailureBox({ failure }: { failure: NonNullable<Run["failure"]> }) {
  const sentence = failureSentence(failure.code);
  return (
    <div role="alert" className="mb-4 rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100" data-testid="run-failure">
      <p className="font-medium">
        The run failed: {sentence ?? failure.message} <span className="font-mono text-xs">({failure.code})</span>
      </p>
      {sentence ? <p className="mt-0.5">{failure.message}</p> : null}
      {failure.details ? <pre className="mt-1 font-mono text-xs whitespace-pre-wrap">{JSON.stringify(failure.details)}</pre> : null}
    </div>
  );
}

export type { RunEvent };
