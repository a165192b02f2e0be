"use client";

/**
 * The run as a picture: a time axis, one lane for the model and lanes for tool calls (parallel calls side by side),
 * waits hatched in their own lane, retries, repairs, guardrail findings and the end as markers. Each bar and marker
 * is focusable (Tab) and says its event; Enter or a click selects the event in the step list. A model call being
 * written is an open bar growing with its text; Enter or a click brings its live row into view.
 */
import { useMemo } from "react";
import { axisTicks, buildTimeline, formatMs, type TimelineBar, type TimelineMarker } from "@/lib/client/timeline";
import type { LiveCall } from "@/lib/client/live-answer";
import type { RunEvent } from "@/lib/client/run-types";

const LANE_H = 30;
const LABEL_W = 84;
const WIDTH = 1000;
const AXIS_H = 24;

const MARKER_COLOR: Record<TimelineMarker["kind"], string> = { retry: "#d97706", guardrail: "#d97706", repair: "#d97706", resumed: "#52525b", completed: "#059669", failed: "#dc2626", cancelled: "#52525b", other: "#52525b" };

function barFill(bar: TimelineBar) {
  if (bar.kind === "wait") return "url(#timeline-hatch)";
  if (bar.kind === "model") return "#4f46e5";
  return bar.ok ? "#0891b2" : "#dc2626";
}

export function RunTimeline({ events, live, selectedSeq, onSelect, writing = null, onSelectWriting }: { events: RunEvent[]; live: boolean; selectedSeq: number | null; onSelect(seq: number): void; writing?: LiveCall | null; onSelectWriting?(): void }) {
  // Each piece of a call being written redraws its open bar up to now.
  const timeline = useMemo(() => buildTimeline(events, Date.now(), { writingCallIndex: writing?.callIndex ?? null }), [events, writing]);
  const duration = Math.max(timeline.durationMs, 1);
  const plotW = WIDTH - LABEL_W - 12;
  const x = (ms: number) => LABEL_W + (ms / duration) * plotW;
  const height = AXIS_H + timeline.lanes.length * LANE_H + 8;
  const ticks = axisTicks(duration);
  const choose = (bar: TimelineBar) => (bar.seqs.length ? onSelect(bar.seqs[0]) : onSelectWriting?.());
  const select = (action: () => void) => (event: React.KeyboardEvent) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      action();
    }
  };
  return (
    <figure className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" data-testid="run-timeline">
      <figcaption className="mb-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
        <span className="text-sm font-medium text-zinc-900 dark:text-zinc-100">Timeline</span>
        <span>{formatMs(timeline.durationMs)}{live ? " so far" : ""}</span>
        <Legend color="#4f46e5" label="model call" />
        <Legend color="#0891b2" label="tool call" />
        <Legend color="#dc2626" label="failed call" />
        <Legend color="#a1a1aa" label="wait" hatched />
        <Legend color="#d97706" label="retry / repair / guardrail" marker />
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} className="w-full" role="group" aria-label={`Timeline of the run: ${timeline.bars.length} steps over ${formatMs(timeline.durationMs)}`}>
        <defs>
          <pattern id="timeline-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill="#f4f4f5" />
            <line x1="0" y1="0" x2="0" y2="6" stroke="#a1a1aa" strokeWidth="2" />
          </pattern>
        </defs>
        {ticks.map((tick) => (
          <g key={tick} aria-hidden="true">
            <line x1={x(tick)} x2={x(tick)} y1={AXIS_H - 4} y2={height - 4} stroke="#e4e4e7" />
            <text x={x(tick)} y={12} fontSize="11" textAnchor="middle" fill="#52525b">
              {formatMs(tick)}
            </text>
          </g>
        ))}
        {timeline.lanes.map((lane, index) => (
          <g key={lane.label} aria-hidden="true">
            <rect x={0} y={AXIS_H + index * LANE_H} width={WIDTH} height={LANE_H} fill={index % 2 ? "#fafafa" : "transparent"} />
            <text x={4} y={AXIS_H + index * LANE_H + LANE_H / 2 + 4} fontSize="12" fill="#3f3f46">
              {lane.label}
            </text>
          </g>
        ))}
        {timeline.bars.map((bar) => {
          const x1 = x(bar.start);
          const w = Math.max(3, x(bar.end) - x1);
          const y = AXIS_H + bar.lane * LANE_H + 6;
          const selected = bar.seqs.includes(selectedSeq ?? -1);
          const label = `${bar.label}: ${formatMs(bar.end - bar.start)}${bar.open ? (bar.seqs.length ? ", still running" : " so far") : ""}${bar.kind === "tool" && !bar.ok ? ", failed" : ""}${bar.retries ? `, ${bar.retries} retries` : ""}, from +${formatMs(bar.start)}`;
          return (
            <g key={bar.key} tabIndex={0} role="button" aria-label={label} data-bar-kind={bar.kind} data-writing={bar.seqs.length ? undefined : "true"} onClick={() => choose(bar)} onKeyDown={select(() => choose(bar))} className="cursor-pointer outline-none [&:focus-visible>rect]:stroke-indigo-900 [&:focus-visible>rect]:stroke-2">
              <title>{label}</title>
              <rect x={x1} y={y} width={w} height={LANE_H - 12} rx={3} fill={barFill(bar)} stroke={selected ? "#18181b" : bar.kind === "wait" ? "#a1a1aa" : "none"} strokeWidth={selected ? 2 : 1} opacity={bar.open ? 0.7 : 1} />
            </g>
          );
        })}
        {/* Captions sit outside the focusable bars, so each bar's accessible name is its label alone. */}
        <g aria-hidden="true">
          {timeline.bars.map((bar) => {
            const x1 = x(bar.start);
            const w = Math.max(3, x(bar.end) - x1);
            const y = AXIS_H + bar.lane * LANE_H + 6;
            return w > 90 ? (
              <text key={bar.key} x={x1 + 5} y={y + LANE_H / 2 - 2} fontSize="11" fill={bar.kind === "wait" ? "#27272a" : "#ffffff"} pointerEvents="none">
                {bar.label.length > w / 7 ? `${bar.label.slice(0, Math.floor(w / 7) - 1)}…` : bar.label}
              </text>
            ) : null;
          })}
        </g>
        {timeline.markers.map((marker) => {
          const cx = x(marker.at);
          const cy = AXIS_H + marker.lane * LANE_H + 3;
          return (
            <g key={marker.key} tabIndex={0} role="button" aria-label={`${marker.label} at +${formatMs(marker.at)}`} data-marker-kind={marker.kind} onClick={() => onSelect(marker.seq)} onKeyDown={select(() => onSelect(marker.seq))} className="cursor-pointer outline-none [&:focus-visible>path]:stroke-indigo-900 [&:focus-visible>path]:stroke-2">
              <title>{marker.label}</title>
              <path d={`M${cx} ${cy} l5 6 l-5 6 l-5 -6 Z`} fill={MARKER_COLOR[marker.kind]} stroke="#ffffff" strokeWidth={1} />
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

function Legend({ color, label, hatched, marker }: { color: string; label: string; hatched?: boolean; marker?: boolean }) {
  return (
    <span className="inline-flex items-center gap-1">
      <svg aria-hidden="true" width="14" height="10" viewBox="0 0 14 10">
        {marker ? <path d="M7 0 l5 5 l-5 5 l-5 -5 Z" fill={color} /> : <rect width="14" height="10" rx="2" fill={hatched ? "#e4e4e7" : color} stroke={hatched ? color : "none"} strokeDasharray={hatched ? "2 2" : undefined} />}
      </svg>
      {label}
    </span>
  );
}
