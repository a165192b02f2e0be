"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import type { ParameterForm } from "@/lib/client/agent-types";
import { agentKeys, conversationKeys, runKeys } from "@/lib/client/query-keys";
import type { Run } from "@/lib/client/run-types";

export type Conversation = { id: string; projectId: string; agent: { id: string; version: string }; title: string | null; status: "open" | "closed"; messageCount: number; createdAt: string; lastActivityAt: string };
export type Message = { seq: number; role: "user" | "assistant"; content: string; runId: string | null; createdAt: string };

/** An idempotency key (crypto.randomUUID needs a secure context; plain-http deployments get a random string). */
function newKey(): string {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return `k${Date.now().toString(36)}${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/** The parameter form of a saved agent version (GET /v1/agents/{id}/versions/{v}/form). */
export function useAgentVersionForm(agentId: string, version: string) {
  return useQuery({
    queryKey: [...agentKeys.version(agentId, version), "form"],
    queryFn: ({ signal }) => apiFetch<ParameterForm>(`/v1/agents/${encodeURIComponent(agentId)}/versions/${encodeURIComponent(version)}/form`, { signal }),
    enabled: Boolean(agentId && version),
  });
}

/** The agent's open conversations, newest first (to continue one). */
export function useConversations(projectId: string, agentId: string) {
  return useQuery({
    queryKey: conversationKeys.list(projectId, agentId),
    queryFn: ({ signal }) => apiFetch<Page<Conversation>>("/v1/conversations", { query: { projectId, agentId, status: "open", limit: 50 }, signal }),
    enabled: Boolean(projectId && agentId),
  });
}

/** The first 100 messages of a conversation, oldest first. */
export function useConversationMessages(conversationId: string | null) {
  return useQuery({
    queryKey: conversationKeys.messages(conversationId ?? ""),
    queryFn: ({ signal }) => apiFetch<Page<Message>>(`/v1/conversations/${conversationId}/messages`, { query: { limit: 100 }, signal }),
    enabled: Boolean(conversationId),
  });
}

/** Sends a message: opens the conversation first when there is none yet, then starts the run without waiting (202). */
export function useSendMessage() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { agentId: string; version: string; conversationId: string | null; userMessage: string; parameters: Record<string, unknown> }) => {
      let conversationId = input.conversationId;
      if (!conversationId) {
        const conversation = await apiFetch<Conversation>("/v1/conversations", { method: "POST", body: { agent: { id: input.agentId, version: input.version }, title: input.userMessage.slice(0, 80) }, idempotencyKey: newKey() });
        conversationId = conversation.id;
      }
      const run = await apiFetch<Run>("/v1/runs", {
        method: "POST",
        body: { agent: { id: input.agentId, version: input.version }, input: { userMessage: input.userMessage, conversationId, parameters: input.parameters }, options: { wait: false } },
        idempotencyKey: newKey(),
      });
      return { run, conversationId };
    },
    onSuccess: ({ conversationId }) => {
      void client.invalidateQueries({ queryKey: conversationKeys.all });
      void client.invalidateQueries({ queryKey: runKeys.all });
      return conversationId;
    },
  });
}
