"use client";

/**
 * Run count, latency (median and slowest) and cost over time for the project, from its most recent agent turns
 * (GET /v1/runs, up to 500 runs, 100 a page). Buckets are minutes, hours or days depending on the span covered.
 */
import { useMemo } from "react";
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { ErrorBanner, Skeleton } from "@/components/ui";
import { useRecentRuns } from "@/lib/client/use-runs";
import type { Run } from "@/lib/client/run-types";
import { runDurationMs } from "./run-bits";

type Bucket = { label: string; start: number; runs: number; failed: number; p50: number | null; max: number | null; cost: number };

export function bucketRuns(runs: readonly Run[]): { buckets: Bucket[]; unit: string } {
  if (runs.length === 0) return { buckets: [], unit: "hour" };
  const times = runs.map((run) => Date.parse(run.createdAt));
  const span = Math.max(...times) - Math.min(...times);
  const [size, unit] = span <= 2 * 3600_000 ? [5 * 60_000, "5 minutes"] : span <= 3 * 86400_000 ? [3600_000, "hour"] : [86400_000, "day"];
  const first = Math.floor(Math.min(...times) / size) * size;
  const last = Math.floor(Math.max(...times) / size) * size;
  const map = new Map<number, Run[]>();
  for (let t = first; t <= last; t += size) map.set(t, []);
  for (const run of runs) map.get(Math.floor(Date.parse(run.createdAt) / size) * size)?.push(run);
  const buckets = [...map.entries()].slice(-48).map(([start, items]) => {
    const durations = items.map(runDurationMs).filter((d): d is number => d !== null).sort((a, b) => a - b);
    const date = new Date(start);
    const label = size >= 86400_000 ? date.toLocaleDateString(undefined, { month: "short", day: "numeric" }) : date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
    return {
      label,
      start,
      runs: items.length,
      failed: items.filter((run) => run.status === "failed").length,
      p50: durations.length ? durations[Math.floor((durations.length - 1) / 2)] : null,
      max: durations.length ? durations[durations.length - 1] : null,
      cost: Number(items.reduce((sum, run) => sum + run.costUsd, 0).toFixed(6)),
    };
  });
  return { buckets, unit };
}

const axis = { fontSize: 11, fill: "#52525b" };

function ChartCard({ title, summary, children }: { title: string; summary: string; children: React.ReactNode }) {
  return (
    <figure className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <figcaption className="mb-2 flex items-baseline justify-between gap-2">
        <span className="text-sm font-medium text-zinc-900 dark:text-zinc-100">{title}</span>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">{summary}</span>
      </figcaption>
      <div className="h-36" role="img" aria-label={`${title}: ${summary}`}>
        {children}
      </div>
    </figure>
  );
}

export function RunCharts({ projectId }: { projectId: string }) {
  const recent = useRecentRuns(projectId);
  const { buckets, unit } = useMemo(() => bucketRuns(recent.data ?? []), [recent.data]);
  if (recent.isPending)
    return (
      <div className="mb-6 grid grid-cols-3 gap-3" role="status" aria-label="Loading the charts">
        <Skeleton className="h-44" />
        <Skeleton className="h-44" />
        <Skeleton className="h-44" />
      </div>
    );
  if (recent.error) return <ErrorBanner className="mb-6" error={recent.error} title="Cannot load the runs for the charts" />;
  const runs = recent.data ?? [];
  if (runs.length === 0) return null;
  const total = runs.length;
  const failed = runs.filter((run) => run.status === "failed").length;
  const durations = runs.map(runDurationMs).filter((d): d is number => d !== null).sort((a, b) => a - b);
  const median = durations.length ? durations[Math.floor((durations.length - 1) / 2)] : 0;
  const cost = runs.reduce((sum, run) => sum + run.costUsd, 0);
  return (
    <section aria-labelledby="run-charts-title" className="mb-6">
      <h2 id="run-charts-title" className="sr-only">
        Runs over time
      </h2>
      <div className="grid grid-cols-3 gap-3" data-testid="run-charts">
        <ChartCard title="Runs" summary={`${total} recent agent turns · ${failed} failed · per ${unit}`}>
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={buckets} margin={{ top: 4, right: 4, bottom: 0, left: -20 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" vertical={false} />
              <XAxis dataKey="label" tick={axis} minTickGap={16} />
              <YAxis allowDecimals={false} tick={axis} />
              <Tooltip />
              <Bar dataKey="runs" name="runs" fill="#4f46e5" isAnimationActive={false} />
              <Bar dataKey="failed" name="failed" fill="#dc2626" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </ChartCard>
        <ChartCard title="Latency" summary={`median ${median} ms · per ${unit}`}>
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={buckets} margin={{ top: 4, right: 4, bottom: 0, left: -10 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" vertical={false} />
              <XAxis dataKey="label" tick={axis} minTickGap={16} />
              <YAxis tick={axis} tickFormatter={shortDuration} />
              <Tooltip />
              <Line type="monotone" dataKey="p50" name="median ms" stroke="#4f46e5" dot={false} isAnimationActive={false} connectNulls />
              <Line type="monotone" dataKey="max" name="slowest ms" stroke="#a1a1aa" dot={false} isAnimationActive={false} connectNulls />
            </LineChart>
          </ResponsiveContainer>
        </ChartCard>
        <ChartCard title="Cost" summary={`$${cost.toFixed(4)} total · per ${unit}`}>
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={buckets} margin={{ top: 4, right: 4, bottom: 0, left: -10 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" vertical={false} />
              <XAxis dataKey="label" tick={axis} minTickGap={16} />
              <YAxis tick={axis} width={56} tickCount={3} tickFormatter={(value: number) => `$${value}`} domain={[0, (max: number) => (max > 0 ? max : 0.01)]} />
              <Tooltip formatter={(value) => `$${Number(value).toFixed(5)}`} />
              <Bar dataKey="cost" name="cost (USD)" fill="#059669" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </ChartCard>
      </div>
    </section>
  );
}

/** An axis label short enough not to wrap: 900 ms, 3.6 s. */
function shortDuration(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${Math.round(ms)} ms`;
}
