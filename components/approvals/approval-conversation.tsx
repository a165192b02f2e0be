"use client";
import { Button, ErrorBanner, SkeletonRows, cn } from "@/components/ui";
import { useApprovalConversation } from "@/lib/client/use-approval-conversation";
import type { Approval } from "@/lib/client/use-approvals";

/** A session approval's subject: the conversation so far, then the message of the turn that waits. */
export function ApprovalConversation({ approval }: { approval: Approval }) {
  const { messages, next } = useApprovalConversation(approval);
  const list = messages.data?.data ?? [];
  return (
    <section className="mt-4" aria-labelledby={`approval-${approval.id}-conversation`} data-testid="session-conversation">
      <h3 id={`approval-${approval.id}-conversation`} className="mb-1 text-sm font-semibold">
        The conversation so far
      </h3>
      {!approval.conversationId ? <p className="text-sm text-zinc-600 dark:text-zinc-400">This turn belongs to no conversation.</p> : null}
      {messages.isPending && approval.conversationId ? <SkeletonRows rows={3} label="Loading the conversation" /> : null}
      {messages.isError ? <ErrorBanner error={messages.error} title="Cannot load the conversation" action={<Button size="sm" onClick={() => messages.refetch()}>Retry</Button>} /> : null}
      {messages.isSuccess && list.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No completed turn yet.</p> : null}
      {list.length ? (
        <ol className="flex max-h-96 flex-col gap-2 overflow-y-auto rounded border border-zinc-200 p-2 dark:border-zinc-800" aria-label="Messages">
          {list.map((message) => (
            <li key={message.seq} data-testid="session-message" data-role={message.role} className={cn("rounded px-3 py-2 text-sm", message.role === "user" ? "mr-8 bg-zinc-100 dark:bg-zinc-800" : "ml-8 bg-indigo-50 dark:bg-indigo-950")}>
              <span className="block text-xs font-medium text-zinc-600 dark:text-zinc-400">{message.role === "user" ? "Person" : (approval.agent?.id ?? "Agent")}</span>
              <span className="whitespace-pre-wrap break-words">{message.content}</span>
            </li>
          ))}
        </ol>
      ) : null}
      {messages.data?.hasMore ? <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">Only the first 100 messages are shown.</p> : null}
      <h3 className="mt-3 mb-1 text-sm font-semibold">The message that waits</h3>
      {next.isPending ? <SkeletonRows rows={1} label="Loading the waiting message" /> : null}
      {next.isError ? <ErrorBanner error={next.error} title="Cannot load the run" /> : null}
      {next.isSuccess ? (
        <p data-testid="session-next" className="whitespace-pre-wrap break-words rounded border border-dashed border-zinc-300 px-3 py-2 text-sm dark:border-zinc-700">
          {next.data ?? "—"}
        </p>
      ) : null}
    </section>
  );
}
