"use client";
import { useEffect, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { followStream } from "@/lib/client/sse";

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
  list: (projectId: string, status: string) => ["approvals", "list", projectId, status] as const,
  detail: (approvalId: string) => ["approvals", "detail", approvalId] as const,
};

/** The project's approvals with a status, oldest first (GET /v1/approvals). */
export function useApprovals(projectId: string, status = "pending") {
  return useQuery({
    queryKey: approvalKeys.list(projectId, status),
    queryFn: ({ signal }) => apiFetch<Page<Approval>>("/v1/approvals", { query: { projectId, status, limit: 100 }, signal }),
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
 * Follows GET /v1/approvals/stream (reconnecting with Last-Event-ID after a drop): each requested or decided approval
 * refreshes the approval queries. Returns whether the stream is connected, and the last decided approval seen.
 */
export function useApprovalStream() {
  const client = useQueryClient();
  const [live, setLive] = useState(false);
  const [lastDecided, setLastDecided] = useState<Approval | null>(null);
  useEffect(() => {
    const handle = followStream("/v1/approvals/stream", {
      onEvent(message) {
        if (message.event !== "approval.requested" && message.event !== "approval.decided") return;
        try {
          const payload = JSON.parse(message.data) as { approval?: Approval };
          if (payload.approval) {
            client.setQueryData(approvalKeys.detail(payload.approval.id), payload.approval);
            if (message.event === "approval.decided") setLastDecided(payload.approval);
          }
        } catch {
          // a malformed event only refreshes the lists
        }
        void client.invalidateQueries({ queryKey: ["approvals", "list"] });
      },
      isLast: () => false,
      onConnected: setLive,
      onError: () => setLive(false),
    });
    return () => handle.close();
  }, [client]);
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
