"use client";
import { useEffect, useRef, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { subscribeApprovalStream, type ApprovalStreamEvent } from "@/lib/client/approval-stream";

/** An approval as GET /v1/approvals/{id} returns it. */
export type Approval = {
  id: string;
  kind: "tool-call" | "session";
  status: "pending" | "approved" | "rejected" | "expired" | "withdrawn" | string;
  projectId: string;
  runId: string;
  callId: string;
  agent: { id: string; version: string } | null;
  conversationId: string | null;
  tool: { id: string; version: string } | null;
  reason: string;
  effects: Array<{ kind?: string; resource?: string; notes?: string }>;
  arguments: unknown;
  argumentsHash: string | null;
  editedArguments: unknown;
  startedBy: string;
  origin: { kind: string; [key: string]: unknown } | null;
  requestedAt: string;
  expiresAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  rationale: string | null;
  grantId: string | null;
};

export type ApprovalDecision = { decision: "approve" | "reject"; rationale?: string; remember?: boolean | { condition: object }; arguments?: unknown };

export const approvalKeys = {
  all: ["approvals"] as const,
  list: (projectId: string, status: string, order: "oldest" | "newest" = "oldest") => ["approvals", "list", projectId, status, order] as const,
  detail: (approvalId: string) => ["approvals", "detail", approvalId] as const,
};

/** The project's approvals with a status (`decided`: any but pending), oldest first or newest (GET /v1/approvals). */
export function useApprovals(projectId: string, status = "pending", order: "oldest" | "newest" = "oldest") {
  return useQuery({
    queryKey: approvalKeys.list(projectId, status, order),
    queryFn: ({ signal }) => apiFetch<Page<Approval>>("/v1/approvals", { query: { projectId, status: status || undefined, order, limit: 100 }, signal }),
    enabled: Boolean(projectId),
  });
}

export function useApproval(approvalId: string) {
  return useQuery({
    queryKey: approvalKeys.detail(approvalId),
    queryFn: ({ signal }) => apiFetch<Approval>(`/v1/approvals/${encodeURIComponent(approvalId)}`, { signal }),
  });
}

/** POST /v1/approvals/{id}/complete; every approval query is refreshed after. */
export function useDecideApproval() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ approvalId, body }: { approvalId: string; body: ApprovalDecision }) => apiFetch<Approval>(`/v1/approvals/${encodeURIComponent(approvalId)}/complete`, { body }),
    onSuccess: (approval) => {
      client.setQueryData(approvalKeys.detail(approval.id), approval);
      void client.invalidateQueries({ queryKey: approvalKeys.all });
    },
  });
}

/**
 * Follows GET /v1/approvals/stream (one connection shared by every listener, reconnecting with Last-Event-ID after a
 * drop): each requested or decided approval refreshes the approval queries. Returns whether the stream is connected,
 * and the last decided approval seen; `onEvent` hears each event.
 */
export function useApprovalStream(onEvent?: (event: ApprovalStreamEvent) => void) {
  const client = useQueryClient();
  const [live, setLive] = useState(false);
  const [lastDecided, setLastDecided] = useState<Approval | null>(null);
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  });
  useEffect(
    () =>
      subscribeApprovalStream(client, {
        onLive: setLive,
        onEvent(event) {
          if (event.type === "approval.decided") setLastDecided(event.approval);
          handler.current?.(event);
        },
      }),
    [client],
  );
  return { live, lastDecided };
}

/** Seconds left until `iso`, ticking once a second. */
export function useCountdown(iso: string) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return Math.max(0, Math.floor((Date.parse(iso) - now) / 1000));
}
