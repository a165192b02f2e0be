"use client";
import { useEffect, useRef, useState } from "react";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { runKeys } from "@/lib/client/query-keys";
import { isActiveStatus, isTerminalEventType, isTerminalStatus, type JournalPage, type Run, type RunEvent } from "@/lib/client/run-types";
import { emptyLiveAnswer, parseModelDelta, reduceLiveAnswer, type LiveAnswer } from "@/lib/client/live-answer";
import { followStream } from "@/lib/client/sse";

export type RunListFilters = { status?: string; agentId?: string; conversationId?: string; origin?: string };

/** The project's runs, newest first, 50 a page; refetched every 2 s while one of them is pending or running. */
export function useRuns(projectId: string, filters: RunListFilters) {
  return useInfiniteQuery({
    queryKey: runKeys.list(projectId, filters),
    queryFn: ({ pageParam, signal }) => apiFetch<Page<Run>>("/v1/runs", { query: { projectId, ...filters, limit: 50, cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    enabled: Boolean(projectId),
    refetchInterval: (query) => (query.state.data?.pages.some((page) => page.data.some((run) => isActiveStatus(run.status))) ? 2000 : false),
  });
}

/** Up to `max` recent runs of the project (every page up to it), for the charts. */
export function useRecentRuns(projectId: string, max = 500) {
  return useQuery({
    queryKey: runKeys.recent(projectId, max),
    queryFn: async ({ signal }) => {
      const runs: Run[] = [];
      let cursor: string | undefined;
      do {
        const page = await apiFetch<Page<Run>>("/v1/runs", { query: { projectId, kind: "agent-turn", limit: 100, cursor }, signal });
        runs.push(...page.data);
        cursor = page.hasMore ? page.nextCursor : undefined;
      } while (cursor && runs.length < max);
      return runs;
    },
    enabled: Boolean(projectId),
    staleTime: 10_000,
  });
}

/** One run; refetched every second while it is pending, running or suspended. */
export function useRun(runId: string | null) {
  return useQuery({
    queryKey: runKeys.detail(runId ?? ""),
    queryFn: ({ signal }) => apiFetch<Run>(`/v1/runs/${runId}`, { signal }),
    enabled: Boolean(runId),
    refetchInterval: (query) => (query.state.data && !isTerminalStatus(query.state.data.status) ? 1000 : false),
  });
}

/** Journal events by sequence number, each once: the journal only grows, so two reads of it merge into one. */
export function mergeRunEvents(a: readonly RunEvent[] | undefined, b: readonly RunEvent[]): RunEvent[] {
  const bySeq = new Map<number, RunEvent>();
  for (const event of a ?? []) bySeq.set(event.seq, event);
  for (const event of b) bySeq.set(event.seq, event);
  return [...bySeq.values()].sort((x, y) => x.seq - y.seq);
}

/**
 * The whole journal of a run (every page); refetched every second while `poll` is set. A read merges with what is
 * cached (events a stream added while the read was under way stay).
 */
export function useRunJournal(runId: string, poll: boolean) {
  const client = useQueryClient();
  return useQuery({
    queryKey: runKeys.journal(runId),
    queryFn: async ({ signal }) => {
      const events: RunEvent[] = [];
      let since = 0;
      for (;;) {
        const page = await apiFetch<JournalPage>(`/v1/runs/${runId}/journal`, { query: { since, limit: 1000 }, signal });
        events.push(...page.data);
        if (!page.hasMore || page.data.length === 0) break;
        since = page.data[page.data.length - 1].seq;
      }
      return mergeRunEvents(client.getQueryData<RunEvent[]>(runKeys.journal(runId)), events);
    },
    refetchInterval: poll ? 1000 : false,
  });
}

export function useCancelRun() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => apiFetch<Run>(`/v1/runs/${runId}/cancel`, { method: "POST", body: {} }),
    onSuccess: (run) => {
      client.setQueryData(runKeys.detail(run.id), run);
      void client.invalidateQueries({ queryKey: runKeys.all });
    },
  });
}

/**
 * The run's events as they are written (GET /v1/runs/{id}/stream), resuming after a drop; ends after the terminal
 * event. `answer` is the model call being written, from the stream's `model-delta` frames (see live-answer.ts).
 */
export function useRunStream(runId: string | null) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [answer, setAnswer] = useState<LiveAnswer>(emptyLiveAnswer);
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const seen = useRef(new Set<number>());
  const client = useQueryClient();
  useEffect(() => {
    setEvents([]);
    setAnswer(emptyLiveAnswer);
    setError(null);
    setDone(false);
    seen.current = new Set();
    if (!runId) return;
    const handle = followStream(`/v1/runs/${runId}/stream`, {
      onEvent(message) {
        if (message.event === "model-delta") {
          const delta = parseModelDelta(message.data);
          if (delta) setAnswer((current) => reduceLiveAnswer(current, { kind: "delta", delta }));
          return;
        }
        let event: RunEvent;
        try {
          event = JSON.parse(message.data) as RunEvent;
        } catch {
          return;
        }
        if (typeof event.seq !== "number" || seen.current.has(event.seq)) return;
        seen.current.add(event.seq);
        setEvents((current) => [...current, event].sort((a, b) => a.seq - b.seq));
        setAnswer((current) => reduceLiveAnswer(current, { kind: "event", event }));
        if (isTerminalEventType(event.type)) {
          setDone(true);
          void client.invalidateQueries({ queryKey: runKeys.detail(runId) });
        }
      },
      isLast: (message) => isTerminalEventType(message.event),
      onError: setError,
      onConnected: setConnected,
    });
    return () => handle.close();
  }, [runId, client]);
  return { events, answer, connected, error, done };
}
