"use client";
import { Badge, type BadgeTone } from "@/components/ui";
import type { RunStatus } from "@/lib/client/run-types";

const STATUS_TONE: Record<RunStatus, BadgeTone> = { pending: "neutral", running: "accent", suspended: "warning", completed: "success", failed: "danger", cancelled: "neutral" };

/** A run's status in words, with a pulsing dot while it is in flight. */
export function RunStatusBadge({ status }: { status: RunStatus }) {
  return (
    <Badge tone={STATUS_TONE[status] ?? "neutral"} data-status={status}>
      {status === "running" || status === "pending" ? <span aria-hidden="true" className="h-1.5 w-1.5 animate-pulse rounded-full bg-current" /> : null}
      {status}
    </Badge>
  );
}

export function formatCost(usd: number): string {
  if (!usd) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(5)}`;
  return `$${usd.toFixed(3)}`;
}

export function formatTime(iso: string | null): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return date.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function runDurationMs(run: { startedAt: string | null; createdAt: string; finishedAt: string | null }): number | null {
  const start = Date.parse(run.startedAt ?? run.createdAt);
  if (!run.finishedAt) return null;
  return Math.max(0, Date.parse(run.finishedAt) - start);
}

export const shortId = (id: string) => id.slice(0, 8);
