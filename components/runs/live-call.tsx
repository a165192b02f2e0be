"use client";

/**
 * A model call while it is written, from the run's stream: its text so far with a caret, and each tool call it is
 * forming (the tool's id when known, the JSON arguments so far in a monospace block). The journal's `model-called`
 * event replaces it when it lands.
 */
import { Badge, cn } from "@/components/ui";
import type { LiveCall, LiveToolCall } from "@/lib/client/live-answer";

/** A blinking caret after text being written (decorative). */
export function WritingCaret() {
  return <span aria-hidden="true" className="ml-0.5 inline-block h-[1.05em] w-[0.45em] translate-y-[0.15em] animate-pulse rounded-[1px] bg-indigo-500/70 motion-reduce:animate-none dark:bg-indigo-400/70" />;
}

/** "writing…" with a pulsing dot, for a header. */
export function WritingMark({ className }: { className?: string }) {
  return (
    <span className={cn("inline-flex items-center gap-1 text-xs font-normal text-indigo-700 dark:text-indigo-300", className)} data-testid="writing-mark">
      <span aria-hidden="true" className="h-1.5 w-1.5 animate-pulse rounded-full bg-current motion-reduce:animate-none" />
      writing…
    </span>
  );
}

/** One tool call as it forms. */
export function FormingToolCall({ call, writing }: { call: LiveToolCall; writing: boolean }) {
  return (
    <div className="rounded-md border border-dashed border-zinc-300 bg-zinc-50 px-2.5 py-1.5 dark:border-zinc-700 dark:bg-zinc-900/60" data-testid="forming-tool-call" data-tool-id={call.name ?? ""}>
      <p className="text-xs text-zinc-700 dark:text-zinc-300">
        {writing ? "Asking for a call of " : "Was asking for a call of "}
        <span className="font-mono font-medium text-zinc-900 dark:text-zinc-100">{call.name ?? "a tool"}</span>
        {writing ? "…" : ""}
      </p>
      <pre className="mt-1 max-h-40 overflow-auto font-mono text-xs break-all whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">
        {call.arguments}
        {writing ? <WritingCaret /> : null}
      </pre>
    </div>
  );
}

/** The text and tool calls of a call being written (or stopped while it was). */
export function LiveCallBody({ call, writing }: { call: LiveCall; writing: boolean }) {
  const quiet = !call.text && call.toolCalls.length === 0;
  return (
    <div className="space-y-2">
      {call.text || quiet ? (
        <div className="whitespace-pre-wrap text-zinc-900 dark:text-zinc-100" data-testid="live-text">
          {call.text}
          {writing ? <WritingCaret /> : null}
        </div>
      ) : null}
      {call.toolCalls.map((toolCall) => (
        <FormingToolCall key={toolCall.index} call={toolCall} writing={writing} />
      ))}
    </div>
  );
}

/**
 * The step list's row for the model call in flight: shown until its `model-called` event is in the journal; when the
 * run ended while it was written, marked as stopped.
 */
export function LiveModelCallItem({ call, stopped, endedAs, id }: { call: LiveCall; stopped: boolean; endedAs?: "cancelled" | "failed" | "completed" | null; id?: string }) {
  return (
    <li id={id} className={cn("rounded-md border px-3 py-2 text-sm", stopped ? "border-zinc-300 dark:border-zinc-700" : "border-indigo-300 bg-indigo-50/40 dark:border-indigo-800 dark:bg-indigo-950/30")} data-testid="live-model-call" data-call-index={call.callIndex} data-state={stopped ? "stopped" : "writing"}>
      <div className="flex items-start gap-2">
        <Badge tone={stopped ? "neutral" : "accent"} className="font-mono">
          {stopped ? "stopped" : "streaming"}
        </Badge>
        <span className="min-w-0 flex-1 font-medium text-zinc-900 dark:text-zinc-100">
          Model call {call.callIndex + 1}
          {stopped ? `: stopped while it was written (the run ${endedAs === "failed" ? "failed" : "was cancelled"})` : " is being written"}
          {call.attempt > 1 ? <span className="font-normal text-zinc-600 dark:text-zinc-400"> · attempt {call.attempt}</span> : null}
        </span>
        {!stopped ? <WritingMark className="shrink-0" /> : null}
      </div>
      <div className="mt-1 min-w-0 text-sm">
        <LiveCallBody call={call} writing={!stopped} />
      </div>
      <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{stopped ? "Not in the journal: the call never completed." : "Not journaled yet: the journal's model call replaces this when it completes."}</p>
    </li>
  );
}
