"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { automationKeys } from "@/lib/client/query-keys";

export type NotificationEvent = "approval.requested" | "approval.decided";
export type NotificationEndpoint = { id: string; projectId: string; url: string; format: "standard-webhooks" | "slack"; events: NotificationEvent[]; secret?: string; createdBy: string; createdAt: string };
export type NotificationDelivery = {
  id: string;
  endpointId: string;
  type: NotificationEvent | "notification.test";
  messageId: string;
  outcome: "pending" | "delivered" | "failed";
  attempts: number;
  statusCodes: number[];
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
};

/** The project's notification endpoints, newest first (never their secrets). */
export function useNotificationEndpoints(projectId: string) {
  return useQuery({
    queryKey: automationKeys.notificationEndpoints(projectId),
    queryFn: ({ signal }) => apiFetch<Page<NotificationEndpoint>>("/v1/notification-endpoints", { query: { projectId, limit: 100 }, signal }),
    enabled: Boolean(projectId),
  });
}

/** An endpoint's latest deliveries with their attempts, polled while shown. */
export function useNotificationDeliveries(endpointId: string) {
  return useQuery({
    queryKey: automationKeys.notificationDeliveries(endpointId),
    queryFn: ({ signal }) => apiFetch<Page<NotificationDelivery>>(`/v1/notification-endpoints/${endpointId}/deliveries`, { query: { limit: 20 }, signal }),
    refetchInterval: 3000,
  });
}

export function useCreateNotificationEndpoint() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { projectId: string; url: string; format: string; events?: NotificationEvent[] }) => apiFetch<NotificationEndpoint>("/v1/notification-endpoints", { method: "POST", body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["automation", "notification-endpoints"] }),
  });
}

export function useDeleteNotificationEndpoint() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<NotificationEndpoint>(`/v1/notification-endpoints/${id}`, { method: "DELETE" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["automation", "notification-endpoints"] }),
  });
}

/** POST …/test: a `notification.test` event, delivered and retried like any other. */
export function useTestNotificationEndpoint() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<NotificationDelivery>(`/v1/notification-endpoints/${id}/test`, { method: "POST", body: {} }),
    onSuccess: (delivery) => void client.invalidateQueries({ queryKey: automationKeys.notificationDeliveries(delivery.endpointId) }),
  });
}
