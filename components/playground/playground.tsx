"use client";

/**
 * `/playground`: pick an agent version (`?agent=&version=` preselect it, `&conversation=` continues one), fill its
 * parameter form, and talk to it. Each message starts a run with `wait: false`; its journal streams live from
 * GET /v1/runs/{id}/stream into the events panel (model calls, tool calls with arguments and results, retries,
 * guardrail outcomes, usage and cost as they accrue). The answer shows as it is written, in the message being
 * written (the stream's `model-delta` pieces), and so does each tool call the model is forming, until the journal's
 * model call replaces them with the real calls. A running run can be cancelled; an answer cancelled mid-way keeps
 * its text, marked as stopped. Screen readers hear when an answer starts and when it is complete, not each piece.
 * When the run waits for an
 * approval, the call shows in the conversation with the inbox's own actions (approve, remember, reject with a reason,
 * edit then approve); a decision made elsewhere turns the card into who decided what, and the events stream on.
 */
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { ParameterForm, type ParameterValues } from "@/components/forms/parameter-form";
import { Badge, Button, EmptyState, ErrorBanner, Kbd, Label, PageHeader, Select, Skeleton, SkeletonRows, Spinner, Textarea } from "@/components/ui";
import { EventItem } from "@/components/runs/event-item";
import { FailureBox } from "@/components/runs/run-page";
import { formatCost, RunStatusBadge, shortId } from "@/components/runs/run-bits";
import { isApiError } from "@/lib/client/api";
import { useCurrentProject } from "@/lib/client/current-project";
import { useAgent } from "@/lib/client/use-agent";
import { useAgents } from "@/lib/client/use-agents";
import { useAgentVersionForm, useConversationMessages, useConversations, useSendMessage } from "@/lib/client/use-playground";
import { useCancelRun, useRun, useRunStream } from "@/lib/client/use-runs";
import { isDevProvider, isTerminalStatus, type RunEvent } from "@/lib/client/run-types";
import { useRunApprovals } from "@/lib/client/use-run-approvals";
import { useConversationOpenRuns } from "@/lib/client/use-conversation-open-runs";
import { isStopped, writingCall, type LiveCall } from "@/lib/client/live-answer";
import { turnToolCalls, type TurnToolCall } from "@/lib/client/turn-tool-calls";
import { ApprovalCard } from "@/components/playground/approval-card";
import { LiveCallBody, WritingMark } from "@/components/runs/live-call";

type Turn = { runId: string; userMessage: string };

const APPROVAL_EVENTS = new Set(["approval-requested", "approval-decided", "run-completed", "run-failed", "run-cancelled"]);

export function Playground() {
  const { projectId } = useCurrentProject();
  const router = useRouter();
  const search = useSearchParams();
  const agentId = search.get("agent") ?? "";
  const requestedVersion = search.get("version") ?? "";
  const conversationParam = search.get("conversation");
  const agents = useAgents(projectId);
  const agentList = agents.data?.pages.flatMap((page) => page.data) ?? [];
  const agent = useAgent(agentId);
  const activeVersions = (agent.data?.versions ?? []).filter((v) => v.status === "active");
  const version = agentId ? requestedVersion || agent.data?.latestVersion || "" : "";
  const form = useAgentVersionForm(agentId, version);
  const conversations = useConversations(projectId, agentId);
  const [conversationId, setConversationId] = useState<string | null>(conversationParam);
  const conversationIdRef = useRef<string | null>(conversationParam);
  const messages = useConversationMessages(conversationParam);
  const [parameters, setParameters] = useState<ParameterValues>({});
  const [turns, setTurns] = useState<Turn[]>([]);
  const [selectedRun, setSelectedRun] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const send = useSendMessage();

  const setQuery = (next: Record<string, string | null>) => {
    const params = new URLSearchParams(search.toString());
    for (const [key, value] of Object.entries(next)) {
      if (value) params.set(key, value);
      else params.delete(key);
    }
    router.replace(`/playground${params.toString() ? `?${params}` : ""}`);
  };

  // Choosing another agent, version or conversation starts afresh; the URL catching up with a conversation this page
  // just opened does not.
  const shown = useRef({ conversation: conversationParam, agentId, version });
  useEffect(() => {
    const before = shown.current;
    shown.current = { conversation: conversationParam, agentId, version };
    if (before.agentId === agentId && before.version === version && (before.conversation === conversationParam || conversationParam === conversationIdRef.current)) return;
    setConversationId(conversationParam);
    conversationIdRef.current = conversationParam;
    setTurns([]);
    setSelectedRun(null);
  }, [conversationParam, agentId, version]);

  // A conversation opened again shows its unfinished runs as turns (a call still waiting is decided here).
  const openRuns = useConversationOpenRuns(projectId, conversationParam);
  useEffect(() => {
    const found = openRuns.data ?? [];
    if (!found.length) return;
    setTurns((current) => {
      const missing = found.filter((run) => !current.some((turn) => turn.runId === run.id));
      return missing.length ? [...missing.map((run) => ({ runId: run.id, userMessage: run.input.userMessage ?? "" })), ...current] : current;
    });
  }, [openRuns.data, conversationParam]);

  const currentRunId = selectedRun ?? turns[turns.length - 1]?.runId ?? null;
  const currentRun = useRun(turns.length ? (turns[turns.length - 1]?.runId ?? null) : null);
  const running = Boolean(currentRun.data && !isTerminalStatus(currentRun.data.status)) || send.isPending;

  const submit = () => {
    const text = draft.trim();
    if (!text || !agentId || !version || running) return;
    send.mutate(
      { agentId, version, conversationId, userMessage: text, parameters },
      {
        onSuccess: ({ run, conversationId: id }) => {
          setTurns((current) => [...current, { runId: run.id, userMessage: text }]);
          setSelectedRun(null);
          setDraft("");
          if (id !== conversationId) {
            conversationIdRef.current = id;
            setConversationId(id);
            const params = new URLSearchParams(search.toString());
            params.set("conversation", id);
            window.history.replaceState(null, "", `/playground?${params}`);
          }
        },
      },
    );
  };

  const sendIssues = isApiError(send.error) ? send.error.issues.filter((issue) => issue.path.startsWith("/input/parameters")).map((issue) => ({ ...issue, path: issue.path.replace("/input", "") })) : [];

  return (
    <div>
      <PageHeader
        title="Playground"
        description="Talk to an agent version: each run's events stream on the right as they happen. Answers from dev-echo are marked as not from a real model."
        actions={
          conversationId ? (
            <Button onClick={() => setQuery({ conversation: null })}>New conversation</Button>
          ) : null
        }
      />
      <div className="grid grid-cols-[17rem_minmax(0,1fr)_minmax(0,26rem)] gap-5">
        <section aria-labelledby="pg-setup" className="space-y-4">
          <h2 id="pg-setup" className="sr-only">
            Agent and parameters
          </h2>
          <div>
            <Label htmlFor="pg-agent">Agent</Label>
            {agents.isPending ? (
              <Skeleton className="mt-1 h-9" />
            ) : (
              <Select id="pg-agent" className="mt-1" value={agentId} onChange={(e) => setQuery({ agent: e.target.value || null, version: null, conversation: null })}>
                <option value="">Choose an agent…</option>
                {agentList.map((item) => (
                  <option key={item.agentId} value={item.agentId}>
                    {item.name} ({item.agentId})
                  </option>
                ))}
                {agentId && !agentList.some((item) => item.agentId === agentId) ? <option value={agentId}>{agentId}</option> : null}
              </Select>
            )}
            <ErrorBanner className="mt-2" error={agents.error} title="Cannot list the agents" />
          </div>
          {agentId ? (
            <div>
              <Label htmlFor="pg-version">Version</Label>
              <Select id="pg-version" className="mt-1 font-mono" value={version} onChange={(e) => setQuery({ version: e.target.value, conversation: null })} disabled={!agent.data}>
                {activeVersions.map((v) => (
                  <option key={v.version} value={v.version}>
                    {v.version}
                    {v.isLatest ? " (latest)" : ""}
                  </option>
                ))}
                {version && !activeVersions.some((v) => v.version === version) ? <option value={version}>{version}</option> : null}
              </Select>
              <ErrorBanner className="mt-2" error={agent.error} title="Cannot load the agent" />
            </div>
          ) : null}
          {agentId ? (
            <div>
              <Label htmlFor="pg-conversation">Conversation</Label>
              <Select id="pg-conversation" className="mt-1" value={conversationId ?? ""} onChange={(e) => setQuery({ conversation: e.target.value || null })}>
                <option value="">New conversation</option>
                {(conversations.data?.data ?? [])
                  .filter((c) => c.agent.version === version || c.id === conversationId)
                  .map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.title ?? shortId(c.id)} · {c.messageCount} messages
                    </option>
                  ))}
                {conversationId && !(conversations.data?.data ?? []).some((c) => c.id === conversationId) ? <option value={conversationId}>{shortId(conversationId)}</option> : null}
              </Select>
              <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">A conversation stays pinned to the version it was opened with.</p>
            </div>
          ) : null}
          {agentId && version ? (
            <div>
              <h3 className="mb-2 text-sm font-medium text-zinc-800 dark:text-zinc-200">Parameters</h3>
              {form.isPending ? <SkeletonRows rows={2} label="Loading the parameter form" /> : null}
              <ErrorBanner error={form.error} title="Cannot load the parameter form" />
              {form.data ? <ParameterForm fields={form.data.fields} value={parameters} onChange={setParameters} idPrefix="pg-param" issues={sendIssues} legend="Parameters of the agent" /> : null}
              <p className="mt-3 text-xs">
                <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href={`/agents/${encodeURIComponent(agentId)}?version=${encodeURIComponent(version)}`}>
                  Open the agent
                </Link>
              </p>
            </div>
          ) : null}
        </section>

        <section aria-labelledby="pg-chat" className="flex min-h-[28rem] flex-col rounded-lg border border-zinc-200 dark:border-zinc-800">
          <h2 id="pg-chat" className="border-b border-zinc-200 px-4 py-2 text-sm font-semibold dark:border-zinc-800">
            Conversation {conversationId ? <span className="font-mono text-xs font-normal text-zinc-600 dark:text-zinc-400">{shortId(conversationId)}</span> : null}
          </h2>
          {/* Focusable: a long answer scrolls, and the keyboard must reach it (axe: scrollable-region-focusable). */}
          <div className="flex-1 space-y-3 overflow-y-auto p-4 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-blue-600" role="group" aria-label="Conversation so far" tabIndex={0}>
            {!agentId ? (
              agents.data && agentList.length === 0 ? (
                <EmptyState title="No agents to talk to yet" action={<Button variant="primary" asChild><Link href="/agents/new">New agent</Link></Button>}>
                  Define an agent first, or register one with <code className="font-mono">POST /v1/agents</code>.
                </EmptyState>
              ) : (
                <EmptyState title="Choose an agent">Pick an agent and a version on the left, fill its parameters, then write a message below.</EmptyState>
              )
            ) : null}
            {messages.isPending && conversationParam ? <SkeletonRows rows={2} label="Loading the conversation" /> : null}
            <ErrorBanner error={messages.error} title="Cannot load the conversation" />
            {(messages.data?.data ?? [])
              .filter((m) => !turns.some((turn) => turn.runId === m.runId))
              .map((message) => (
                <Bubble key={message.seq} role={message.role}>
                  {message.content}
                </Bubble>
              ))}
            {turns.map((turn) => (
              <TurnView key={turn.runId} turn={turn} selected={currentRunId === turn.runId} onSelect={() => setSelectedRun(turn.runId)} />
            ))}
            {agentId && turns.length === 0 && !(messages.data?.data ?? []).length && !messages.isPending ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No messages yet: write the first one below.</p> : null}
          </div>
          <form
            className="border-t border-zinc-200 p-3 dark:border-zinc-800"
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            <ErrorBanner className="mb-2" error={send.error} title="The message was not sent" />
            <Label htmlFor="pg-message" className="sr-only">
              Message
            </Label>
            <Textarea
              id="pg-message"
              rows={3}
              placeholder={agentId ? "Write a message…" : "Choose an agent first"}
              disabled={!agentId || !version}
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                  e.preventDefault();
                  submit();
                }
              }}
              aria-keyshortcuts="Control+Enter Meta+Enter"
            />
            <div className="mt-2 flex items-center justify-end gap-2">
              <span className="mr-auto text-xs text-zinc-600 dark:text-zinc-400">
                <Kbd>Ctrl</Kbd> <Kbd>Enter</Kbd> sends
              </span>
              {currentRun.data && !isTerminalStatus(currentRun.data.status) ? <CancelButton runId={currentRun.data.id} /> : null}
              <Button type="submit" variant="primary" disabled={!agentId || !version || !draft.trim() || running}>
                {send.isPending ? <Spinner /> : null}
                Send
              </Button>
            </div>
          </form>
        </section>

        <section aria-labelledby="pg-events" className="min-w-0">
          <h2 id="pg-events" className="mb-2 text-sm font-semibold">
            Run events
          </h2>
          {currentRunId ? <RunEventsPanel runId={currentRunId} /> : <EmptyState title="No run yet">Send a message: the run&apos;s events appear here as they happen.</EmptyState>}
        </section>
      </div>
    </div>
  );
}

function Bubble({ role, children, footer }: { role: "user" | "assistant"; children: React.ReactNode; footer?: React.ReactNode }) {
  return (
    <div className={role === "user" ? "ml-10 rounded-lg bg-indigo-50 px-3 py-2 text-sm dark:bg-indigo-950" : "mr-10 rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-900"} data-role={role}>
      <p className="mb-0.5 text-xs font-medium text-zinc-600 dark:text-zinc-400">{role === "user" ? "You" : "Agent"}</p>
      <div className="whitespace-pre-wrap [overflow-wrap:anywhere] text-zinc-900 dark:text-zinc-100">{children}</div>
      {footer}
    </div>
  );
}

function TurnView({ turn, selected, onSelect }: { turn: Turn; selected: boolean; onSelect(): void }) {
  const run = useRun(turn.runId);
  const stream = useRunStream(turn.runId);
  const completed = stream.events.find((event) => event.type === "run-completed");
  const failed = stream.events.find((event) => event.type === "run-failed");
  const cancelled = stream.events.find((event) => event.type === "run-cancelled");
  const dev = isDevProvider(run.data?.provider?.id ?? (stream.events.find((e) => e.type === "turn-started")?.data.provider as { id?: string } | undefined)?.id);
  const output = completed?.data.output;
  const outputText = typeof output === "string" ? output : JSON.stringify(output, null, 2);
  // Each approval-requested / approval-decided event in the run's stream (and its end: cancelling withdraws what is
  // open) reads the run's approvals again, so a decision made elsewhere turns the pending card into who decided what.
  const approvalEvents = stream.events.filter((event) => APPROVAL_EVENTS.has(event.type)).length;
  const approvals = useRunApprovals(turn.runId, approvalEvents);
  const waiting = (approvals.data?.data ?? []).some((approval) => approval.status === "pending");
  const writing = writingCall(stream.answer);
  const stopped = isStopped(stream.answer);
  const toolCalls = useMemo(() => turnToolCalls(stream.events), [stream.events]);
  // The model calls that asked for tools, each with the text it wrote before them (the journal's, once it landed).
  const steps = useMemo(
    () =>
      stream.events
        .filter((event) => event.type === "model-called" && Array.isArray(event.data.toolCalls) && event.data.toolCalls.length > 0)
        .map((event) => ({ index: Number(event.data.index ?? 0), text: typeof event.data.text === "string" ? event.data.text : "" })),
    [stream.events],
  );
  // One polite announcement per change of state, never per piece of text.
  const announcement = completed
    ? `The agent answered: ${outputText}`
    : cancelled
      ? stopped
        ? "Run cancelled; the answer stopped where it was."
        : "Run cancelled."
      : failed || waiting
        ? ""
        : writing
          ? "The agent is writing…"
          : "";
  return (
    <div className="space-y-2" data-run-id={turn.runId}>
      <Bubble role="user">{turn.userMessage}</Bubble>
      {steps.map((step) => (
        <ModelStep key={step.index} index={step.index} text={step.text} calls={toolCalls.filter((call) => call.callId.startsWith(`${step.index}.`))} />
      ))}
      {(approvals.data?.data ?? []).map((approval) => (
        <ApprovalCard key={approval.id} approval={approval} />
      ))}
      <ErrorBanner error={approvals.error} title="Cannot load the run's approvals" />
      {completed ? (
        <Bubble
          role="assistant"
          footer={
            <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
              {dev ? <Badge tone="warning" data-testid="dev-echo-mark">not from a real model (dev-echo)</Badge> : null}
              <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href={`/runs/${turn.runId}`}>
                Run {shortId(turn.runId)}
              </Link>
              {run.data ? <span>{formatCost(run.data.costUsd)} · {run.data.usage.inputTokens + run.data.usage.outputTokens} tokens</span> : null}
              {!selected ? (
                <button type="button" className="text-indigo-700 hover:underline dark:text-indigo-300" onClick={onSelect}>
                  Show its events
                </button>
              ) : null}
            </p>
          }
        >
          {outputText}
        </Bubble>
      ) : failed ? (
        <>
          {stopped && writing ? <LiveAnswer call={writing} stoppedBy="failed" dev={dev} /> : null}
          <FailureBox failure={(failed.data.failure as { code: string; message: string }) ?? { code: "internal-error", message: "" }} />
        </>
      ) : cancelled ? (
        <>
          {stopped && writing ? <LiveAnswer call={writing} stoppedBy="cancelled" dev={dev} /> : null}
          <p className="text-sm text-zinc-600 dark:text-zinc-400">The run was cancelled.</p>
        </>
      ) : waiting ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="run-waiting">
          The run is suspended until the call above is decided: it holds no process meanwhile.
        </p>
      ) : writing ? (
        <LiveAnswer call={writing} stoppedBy={null} dev={dev} />
      ) : (
        <p className="flex items-center gap-2 text-sm text-zinc-600 dark:text-zinc-400" role="status">
          <Spinner /> The agent is working… ({stream.events.length} events so far)
        </p>
      )}
      <p className="sr-only" aria-live="polite" aria-atomic="true" data-testid="answer-announcement">
        {announcement}
      </p>
      <ErrorBanner error={stream.error} title="The run's event stream failed" />
    </div>
  );
}

/** The message being written: the model call's text so far and the tool calls it is forming; or where it stopped. */
function LiveAnswer({ call, stoppedBy, dev }: { call: LiveCall; stoppedBy: "cancelled" | "failed" | null; dev: boolean }) {
  const stopped = stoppedBy !== null;
  return (
    <div
      className={stopped ? "mr-10 rounded-lg border border-dashed border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900" : "mr-10 rounded-lg border border-indigo-200 bg-white px-3 py-2 text-sm dark:border-indigo-900 dark:bg-zinc-900"}
      data-role="assistant"
      data-testid="live-answer"
      data-state={stopped ? "stopped" : "writing"}
      data-call-index={call.callIndex}
    >
      <p className="mb-0.5 flex flex-wrap items-center gap-2 text-xs font-medium text-zinc-600 dark:text-zinc-400">
        Agent
        {stopped ? (
          <Badge tone="neutral" data-testid="stopped-mark">
            stopped
          </Badge>
        ) : (
          <WritingMark />
        )}
      </p>
      <LiveCallBody call={call} writing={!stopped} />
      {stopped || dev ? (
        <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
          {dev ? <Badge tone="warning">not from a real model</Badge> : null}
          {stopped ? <span>Stopped mid-answer: the run {stoppedBy === "failed" ? "failed" : "was cancelled"} while the agent was writing, so this text is not kept in the conversation.</span> : null}
        </p>
      ) : null}
    </div>
  );
}

const TOOL_STATUS: Record<TurnToolCall["status"], { words: string; tone: "neutral" | "accent" | "success" | "warning" | "danger" }> = {
  asked: { words: "asked for", tone: "neutral" },
  "waiting-approval": { words: "waiting for a decision", tone: "warning" },
  waiting: { words: "waiting for an answer", tone: "warning" },
  running: { words: "running", tone: "accent" },
  returned: { words: "returned", tone: "success" },
  failed: { words: "failed", tone: "danger" },
  stopped: { words: "stopped with the run", tone: "neutral" },
};

/** A model call that asked for tools: the text it wrote first (if any), then each call and what became of it. */
function ModelStep({ index, text, calls }: { index: number; text: string; calls: TurnToolCall[] }) {
  return (
    <div className="mr-10 space-y-1.5 border-l-2 border-zinc-200 pl-3 dark:border-zinc-700" data-testid="model-step" data-call-index={index}>
      {text ? (
        <p className="text-sm whitespace-pre-wrap text-zinc-700 dark:text-zinc-300" data-testid="model-note">
          {text}
        </p>
      ) : null}
      <ul className="space-y-1.5" aria-label={`Tool calls of model call ${index + 1}`}>
        {calls.map((call) => {
          const status = TOOL_STATUS[call.status];
          return (
            <li key={call.callId} className="rounded-md border border-zinc-200 bg-zinc-50 px-2.5 py-1.5 text-xs dark:border-zinc-800 dark:bg-zinc-900/60" data-testid="tool-call-card" data-status={call.status} data-tool-id={call.toolId}>
              <p className="flex flex-wrap items-center gap-2">
                <span className="font-mono font-medium [overflow-wrap:anywhere] text-zinc-900 dark:text-zinc-100">
                  {call.toolId}
                  {call.version ? `@${call.version}` : ""}
                </span>
                <Badge tone={status.tone}>
                  {call.status === "running" ? <Spinner className="-my-1 scale-75" /> : null}
                  {status.words}
                  {call.status === "returned" && call.durationMs !== null ? ` in ${call.durationMs} ms` : ""}
                </Badge>
                {call.status === "failed" && call.error ? <span className="text-red-800 dark:text-red-200">{[call.error.kind, call.error.message].filter(Boolean).join(": ")}</span> : null}
              </p>
              <pre className="mt-1 max-h-24 overflow-auto font-mono break-all whitespace-pre-wrap text-zinc-700 dark:text-zinc-300">{JSON.stringify(call.arguments ?? {})}</pre>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function CancelButton({ runId }: { runId: string }) {
  const cancel = useCancelRun();
  return (
    <>
      <Button variant="danger" onClick={() => cancel.mutate(runId)} disabled={cancel.isPending}>
        {cancel.isPending ? <Spinner /> : null}
        Cancel run
      </Button>
      {cancel.error ? <ErrorBanner error={cancel.error} title="Cannot cancel" /> : null}
    </>
  );
}

function RunEventsPanel({ runId }: { runId: string }) {
  const stream = useRunStream(runId);
  const run = useRun(runId);
  const endRef = useRef<HTMLDivElement>(null);
  const totals = useMemo(() => accrued(stream.events), [stream.events]);
  const dev = isDevProvider(run.data?.provider?.id);
  const writing = writingCall(stream.answer);
  useEffect(() => {
    // Braces: newer browsers' scrollIntoView returns a promise, which must not become the effect's cleanup.
    endRef.current?.scrollIntoView({ block: "nearest" });
  }, [stream.events.length]);
  const startedAt = stream.events.length ? Date.parse(stream.events[0].createdAt) : undefined;
  return (
    <div className="rounded-lg border border-zinc-200 dark:border-zinc-800" data-testid="run-events">
      <div className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 text-xs dark:border-zinc-800">
        <Link className="font-mono text-indigo-700 hover:underline dark:text-indigo-300" href={`/runs/${runId}`}>
          run {shortId(runId)}
        </Link>
        {run.data ? <RunStatusBadge status={run.data.status} /> : null}
        <span className="inline-flex items-center gap-1" aria-live="polite">
          <span aria-hidden="true" className={`h-2 w-2 rounded-full ${stream.connected ? "animate-pulse bg-emerald-500" : "bg-zinc-400"}`} />
          {stream.connected ? "live" : stream.done ? "ended" : "connecting"}
        </span>
        <span className="ml-auto font-mono text-zinc-700 dark:text-zinc-300" data-testid="accrued">
          {totals.modelCalls} model · {totals.toolCalls} tool calls · {totals.tokens} tokens · {formatCost(totals.cost)}
        </span>
      </div>
      <ol className="max-h-[34rem] space-y-2 overflow-y-auto p-2" aria-label="Events of the run, as they happen">
        {stream.events.map((event) => (
          <EventItem key={event.seq} event={event} devProvider={dev} startedAt={startedAt} />
        ))}
        {!stream.done && !stream.error ? (
          writing ? (
            <li className="flex items-center gap-2 rounded-md border border-indigo-200 bg-indigo-50/40 px-2 py-1 text-xs text-indigo-900 dark:border-indigo-900 dark:bg-indigo-950/30 dark:text-indigo-100" data-testid="live-model-call-summary">
              <Spinner /> Model call {writing.callIndex + 1} is being written
              {writing.text.length ? `: ${writing.text.length} characters so far` : ""}
              {writing.toolCalls.length ? `${writing.text.length ? "," : ":"} asking for ${writing.toolCalls.map((call) => call.name ?? "a tool").join(", ")}` : ""}
              {writing.attempt > 1 ? ` (attempt ${writing.attempt})` : ""}
            </li>
          ) : (
            <li className="flex items-center gap-2 px-2 py-1 text-xs text-zinc-600 dark:text-zinc-400">
              <Spinner /> waiting for the next event…
            </li>
          )
        ) : null}
      </ol>
      <div ref={endRef} />
    </div>
  );
}

/** Usage and cost as they accrue, from the model-called and tool-call events so far. */
function accrued(events: RunEvent[]) {
  let tokens = 0;
  let cost = 0;
  let modelCalls = 0;
  let toolCalls = 0;
  for (const event of events) {
    if (event.type === "model-called") {
      const usage = event.data.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      tokens += (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
      cost += Number(event.data.costUsd ?? 0);
      modelCalls += 1;
    }
    if (event.type === "tool-call-completed") toolCalls += 1;
  }
  return { tokens, cost, modelCalls, toolCalls };
}
