"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import type { Approval } from "@/lib/client/use-approvals";

export type ConversationMessage = { seq: number; role: "user" | "assistant"; content: string; runId: string | null; createdAt: string };

/**
 * What a session approval is about: the conversation so far (its first 100 messages, GET
 * /v1/conversations/{id}/messages) and the message of the turn that waits (the run's input, GET /v1/runs/{id}).
 */
export function useApprovalConversation(approval: Approval) {
  const enabled = approval.kind === "session" && Boolean(approval.conversationId);
  const messages = useQuery({
    queryKey: ["approvals", "conversation", approval.conversationId ?? "", "messages"],
    queryFn: ({ signal }) => apiFetch<Page<ConversationMessage>>(`/v1/conversations/${encodeURIComponent(approval.conversationId ?? "")}/messages`, { query: { limit: 100 }, signal }),
    enabled,
  });
  const next = useQuery({
    queryKey: ["approvals", "conversation", approval.runId, "next"],
    queryFn: ({ signal }) => apiFetch<{ input?: { userMessage?: string } }>(`/v1/runs/${encodeURIComponent(approval.runId)}`, { signal }),
    enabled: approval.kind === "session",
    select: (run) => run.input?.userMessage ?? null,
    staleTime: Infinity,
  });
  return { messages, next };
}
