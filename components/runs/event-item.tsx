"use client";

/**
 * One journal event in words, with its details one click away (the JSON of `data` as a tree). Unknown event types
 * are shown by name with their data, so new kinds of events appear without a console change.
 */
import { JsonTree } from "@/components/catalog/json-view";
import { Badge, cn, type BadgeTone } from "@/components/ui";
import { failureSentence } from "@/lib/client/run-failures";
import type { RunEvent } from "@/lib/client/run-types";
import { formatCost } from "./run-bits";

type Summary = { title: string; tone: BadgeTone; body?: React.ReactNode };

type RetrievedFactView = { id: string; type: string; content: string; score?: number; foundBy?: "keyword" | "semantic" | "both" };
type RetrievalView = { embedding: { providerId: string; model: string } | null; skipped: number; warnings: string[] };

const FOUND_BY: Record<NonNullable<RetrievedFactView["foundBy"]>, { label: string; tone: BadgeTone }> = {
  keyword: { label: "keyword", tone: "neutral" },
  semantic: { label: "meaning", tone: "accent" },
  both: { label: "keyword + meaning", tone: "success" },
};

/** The facts a turn was grounded with: each with how it was found and its score; what retrieval by meaning skipped. */
function TurnRetrieval({ line, facts, retrieval }: { line: string; facts: RetrievedFactView[]; retrieval: RetrievalView | undefined }) {
  return (
    <span className="block space-y-1">
      <span className="block">{line}</span>
      <span className="block text-xs text-zinc-600 dark:text-zinc-400">
        {facts.length} fact{facts.length === 1 ? "" : "s"} retrieved
        {retrieval?.embedding ? ` · query embedded with ${retrieval.embedding.providerId}/${retrieval.embedding.model}` : ""}
        {retrieval && retrieval.skipped > 0 ? ` · ${retrieval.skipped} not embedded yet (not searched by meaning)` : ""}
      </span>
      {retrieval?.warnings.map((warning) => (
        <span key={warning} className="block text-xs text-amber-800 dark:text-amber-200">
          {warning}
        </span>
      ))}
      {facts.length ? (
        <span className="block">
          <span className="sr-only">Retrieved facts</span>
          {facts.map((fact) => (
            <span key={fact.id} className="flex items-baseline gap-2 py-0.5 text-xs">
              {fact.foundBy ? <Badge tone={FOUND_BY[fact.foundBy].tone}>{FOUND_BY[fact.foundBy].label}</Badge> : null}
              {typeof fact.score === "number" ? <span className="tabular-nums text-zinc-600 dark:text-zinc-400" title="The fact's score in the ranking that ordered it">{fact.score.toFixed(3)}</span> : null}
              <span className="min-w-0 truncate text-zinc-800 dark:text-zinc-200" title={fact.content}>
                <span className="text-zinc-500">{fact.type}:</span> {fact.content}
              </span>
            </span>
          ))}
        </span>
      ) : null}
    </span>
  );
}

function str(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function summarizeEvent(event: RunEvent, options: { devProvider?: boolean } = {}): Summary {
  const d = event.data ?? {};
  switch (event.type) {
    case "run-created":
      return { title: "Run created", tone: "neutral", body: d.userMessage ? <q className="text-zinc-700 dark:text-zinc-300">{str(d.userMessage)}</q> : null };
    case "turn-started": {
      const provider = d.provider as { id?: string; model?: string; reason?: string } | undefined;
      const tools = (d.resolvedTools as unknown[] | undefined)?.length ?? 0;
      const facts = (d.facts as RetrievedFactView[] | undefined) ?? [];
      const retrieval = d.retrieval as RetrievalView | undefined;
      const line = `provider ${provider?.id ?? "?"} · model ${provider?.model ?? "?"} · ${tools} tool${tools === 1 ? "" : "s"} resolved`;
      if (!facts.length && !retrieval) return { title: "Turn started", tone: "neutral", body: line };
      return { title: "Turn started", tone: "neutral", body: <TurnRetrieval line={line} facts={facts} retrieval={retrieval} /> };
    }
    case "invocation-started":
      return { title: "Tool invocation started", tone: "neutral", body: `${str((d.tool as { id?: string })?.id)}@${str((d.tool as { version?: string })?.version)}` };
    case "model-called": {
      const usage = d.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      const calls = (d.toolCalls as { name?: string; toolId?: string }[] | undefined) ?? [];
      const attempts = Number(d.attempts ?? 1);
      return {
        title: `Model call ${Number(d.index ?? 0) + 1}`,
        tone: "accent",
        body: (
          <span className="space-y-1">
            {typeof d.text === "string" && d.text ? (
              <span className="block whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">
                {d.text}
                {options.devProvider ? <Badge tone="warning" className="ml-2 align-middle">not from a real model</Badge> : null}
              </span>
            ) : null}
            {d.textWithheld ? <span className="block text-red-700 dark:text-red-300">The answer was withheld by a halting guardrail.</span> : null}
            <span className="block text-xs text-zinc-600 dark:text-zinc-400">
              {calls.length ? `asks for ${calls.length} tool call${calls.length === 1 ? "" : "s"} · ` : ""}
              {usage?.inputTokens ?? 0} in / {usage?.outputTokens ?? 0} out tokens · {formatCost(Number(d.costUsd ?? 0))} · finish {str(d.finishReason)}
              {attempts > 1 ? ` · ${attempts - 1} ${attempts === 2 ? "retry" : "retries"}` : ""}
            </span>
          </span>
        ),
      };
    }
    case "tool-call-started":
      return {
        title: `Tool call ${str(d.callId)}: ${str(d.toolId)}@${str(d.version)}`,
        tone: "neutral",
        body: (
          <span className="block">
            <span className="text-xs text-zinc-600 dark:text-zinc-400">arguments</span>
            <span className="mt-1 block text-xs">
              <JsonTree value={d.arguments} />
            </span>
          </span>
        ),
      };
    case "tool-call-completed": {
      const ok = d.ok !== false;
      const error = d.error as { kind?: string; message?: string } | undefined;
      return {
        title: `Tool call ${str(d.callId)} ${ok ? "returned" : "failed"} after ${str(d.durationMs)} ms`,
        tone: ok ? "success" : "danger",
        body: ok ? (
          <span className="block text-xs">
            <JsonTree value={d.output} />
          </span>
        ) : (
          <span className="block text-red-800 dark:text-red-200">
            {error?.kind}: {error?.message}
          </span>
        ),
      };
    }
    case "tool-logged":
      return { title: `${str(d.toolId)} logged (${str(d.level)})`, tone: "neutral", body: <span className="font-mono text-xs">{str(d.message)}</span> };
    case "output-repair-requested":
      return { title: `Output repair ${str(d.attempt)} requested`, tone: "warning", body: ((d.issues as { path: string; message: string }[] | undefined) ?? []).map((issue) => `${issue.path || "/"}: ${issue.message}`).join("; ") };
    case "guardrail-flagged":
      return {
        title: "Guardrail flagged the answer",
        tone: "warning",
        body: ((d.findings as { guardrailId: string; version: string; check: string; message: string }[] | undefined) ?? []).map((f) => `${f.guardrailId}@${f.version} (${f.check}): ${f.message}`).join("; "),
      };
    case "approval-requested":
      return d.kind === "session"
        ? { title: "Waiting for a person to allow the next turn", tone: "warning", body: `session approval (${str(d.reason)})` }
        : { title: `Waiting for an approval of ${str(d.toolId)}@${str(d.version)}`, tone: "warning", body: `call ${str(d.callId)} · asks because the tool is ${str(d.reason)}` };
    case "approval-decided": {
      const decision = str(d.decision);
      return {
        title: `Approval ${decision}${d.edited ? " with edited arguments" : ""}`,
        tone: decision === "approved" ? "success" : decision === "rejected" ? "warning" : "danger",
        body: d.rationale ? <q>{str(d.rationale)}</q> : d.callId === "session" ? "session approval" : `call ${str(d.callId)}`,
      };
    }
    case "run-resumed":
      return { title: "Run resumed", tone: "neutral", body: `worker ${str(d.worker)}${d.previousWorker ? ` after ${str(d.previousWorker)}` : ""}` };
    case "run-completed":
      return {
        title: "Run completed",
        tone: "success",
        body:
          typeof d.output === "string" ? (
            <span className="whitespace-pre-wrap">
              {d.output}
              {options.devProvider ? <Badge tone="warning" className="ml-2 align-middle">not from a real model</Badge> : null}
            </span>
          ) : (
            <span className="block text-xs">
              <JsonTree value={d.output} />
            </span>
          ),
      };
    case "run-failed": {
      const failure = d.failure as { code?: string; message?: string } | undefined;
      return { title: `Run failed: ${failure?.code ?? "unknown"}`, tone: "danger", body: `${failureSentence(failure?.code ?? "") ?? ""} ${failure?.message ?? ""}`.trim() };
    }
    case "run-cancelled":
      return { title: "Run cancelled", tone: "neutral" };
    default:
      return { title: event.type, tone: "neutral" };
  }
}

export function EventItem({ event, devProvider, selected, onSelect, startedAt }: { event: RunEvent; devProvider?: boolean; selected?: boolean; onSelect?(): void; startedAt?: number }) {
  const summary = summarizeEvent(event, { devProvider });
  const offset = startedAt !== undefined ? Date.parse(event.createdAt) - startedAt : null;
  return (
    <li id={`event-${event.seq}`} data-event-type={event.type} data-seq={event.seq} className={cn("rounded-md border px-3 py-2 text-sm", selected ? "border-indigo-400 bg-indigo-50/60 dark:border-indigo-600 dark:bg-indigo-950/40" : "border-zinc-200 dark:border-zinc-800")} onClick={onSelect}>
      <div className="flex items-start gap-2">
        <Badge tone={summary.tone} className="font-mono">
          {event.type}
        </Badge>
        <span className="min-w-0 flex-1 font-medium text-zinc-900 dark:text-zinc-100">{summary.title}</span>
        <span className="shrink-0 font-mono text-xs text-zinc-600 dark:text-zinc-400" title={event.createdAt}>
          #{event.seq}
          {offset !== null ? ` · +${offset} ms` : ""}
        </span>
      </div>
      {summary.body ? <div className="mt-1 min-w-0 text-sm text-zinc-700 dark:text-zinc-300">{summary.body}</div> : null}
      <details className="mt-1">
        <summary className="cursor-pointer text-xs text-indigo-700 hover:underline dark:text-indigo-300">Event details (JSON)</summary>
        <pre className="mt-1 max-h-72 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs text-zinc-800 dark:bg-zinc-900 dark:text-zinc-200">{JSON.stringify(event.data, null, 2)}</pre>
      </details>
    </li>
  );
}
