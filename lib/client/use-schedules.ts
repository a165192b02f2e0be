"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { automationKeys } from "@/lib/client/query-keys";

export type TriggerStatus = "active" | "paused" | "unregistered";
export type RunRef = { id: string; status: string } | null;

export type Schedule = {
  id: string;
  projectId: string;
  name: string;
  cron: string;
  timezone: string;
  agent: { id: string; version: string | null };
  input: { userMessage: string; parameters: Record<string, unknown> };
  toolsAllowedUnattended: string[];
  status: TriggerStatus;
  nextFireAt: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
};

export type ScheduleFire = { id: string; scheduleId: string; tick: string; missed: boolean; outcome: "pending" | "started" | "failed"; runId: string | null; run: RunRef; error: { code: string; message: string } | null; firedAt: string };

export type CreateScheduleBody = {
  projectId: string;
  name: string;
  cron: string;
  timezone: string;
  agent: { id: string; version?: string };
  input: { userMessage: string; parameters?: Record<string, unknown> };
  toolsAllowedUnattended?: string[];
};

/** The project's active and paused schedules, newest first, refreshed every 15 s. */
export function useSchedules(projectId: string) {
  return useQuery({
    queryKey: automationKeys.schedules(projectId),
    queryFn: ({ signal }) => apiFetch<Page<Schedule>>("/v1/schedules", { query: { projectId, limit: 100 }, signal }),
    enabled: Boolean(projectId),
    // The next fire moves on at every tick.
    refetchInterval: 15_000,
  });
}

/** A schedule's latest fires (newest first), polled while shown so a new fire appears on its own. */
export function useScheduleFires(scheduleId: string, options: { poll?: boolean } = {}) {
  return useQuery({
    queryKey: automationKeys.fires(scheduleId),
    queryFn: ({ signal }) => apiFetch<Page<ScheduleFire>>(`/v1/schedules/${scheduleId}/fires`, { query: { limit: 20 }, signal }),
    refetchInterval: options.poll ? 2000 : false,
  });
}

export function useCreateSchedule() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateScheduleBody) => apiFetch<Schedule>("/v1/schedules", { method: "POST", body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["automation", "schedules"] }),
  });
}

/** pause, resume or unregister a schedule. */
export function useScheduleAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: "pause" | "resume" | "unregister" }) => apiFetch<Schedule>(`/v1/schedules/${id}/${action}`, { method: "POST", body: {} }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["automation", "schedules"] }),
  });
}
