"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { automationKeys } from "@/lib/client/query-keys";
import type { RunRef, TriggerStatus } from "@/lib/client/use-schedules";

export type Webhook = {
  id: string;
  projectId: string;
  name: string;
  agent: { id: string; version: string | null };
  input: { userMessage: string; parameters: Record<string, string> };
  toolsAllowedUnattended: string[];
  status: TriggerStatus;
  receiverPath: string;
  receiverUrl: string;
  /** Only in the creation's answer. */
  secret?: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
};

export type WebhookDelivery = { id: string; webhookId: string; messageId: string; outcome: "pending" | "started" | "failed"; runId: string | null; run: RunRef; error: { code: string; message: string } | null; receivedAt: string };

export type CreateWebhookBody = {
  projectId: string;
  name: string;
  agent: { id: string; version?: string };
  input: { userMessage: string; parameters?: Record<string, string> };
  toolsAllowedUnattended?: string[];
};

/** The project's active and paused webhooks, newest first (never their secrets). */
export function useWebhooks(projectId: string) {
  return useQuery({
    queryKey: automationKeys.webhooks(projectId),
    queryFn: ({ signal }) => apiFetch<Page<Webhook>>("/v1/webhooks", { query: { projectId, limit: 100 }, signal }),
    enabled: Boolean(projectId),
  });
}

/** A webhook's latest accepted deliveries (newest first), polled while shown. */
export function useWebhookDeliveries(webhookId: string, options: { poll?: boolean } = {}) {
  return useQuery({
    queryKey: automationKeys.deliveries(webhookId),
    queryFn: ({ signal }) => apiFetch<Page<WebhookDelivery>>(`/v1/webhooks/${webhookId}/deliveries`, { query: { limit: 20 }, signal }),
    refetchInterval: options.poll ? 2000 : false,
  });
}

export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateWebhookBody) => apiFetch<Webhook>("/v1/webhooks", { method: "POST", body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["automation", "webhooks"] }),
  });
}

/** pause, resume or unregister a webhook. */
export function useWebhookAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: "pause" | "resume" | "unregister" }) => apiFetch<Webhook>(`/v1/webhooks/${id}/${action}`, { method: "POST", body: {} }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["automation", "webhooks"] }),
  });
}
