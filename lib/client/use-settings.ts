"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { settingsKeys, toolKeys } from "@/lib/client/query-keys";

export type Token = { id: string; name: string; prefix: string; projectId: string | null; actsFor: { userId: string; kind: "person" | "service"; name: string }; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };
export type Secret = { name: string; version: number; createdAt: string };
/** The capability kind a provider serves: `llm-inference` (a model provider) or `embedding` (an embedding provider). */
export type ProviderCapabilityKind = "llm-inference" | "embedding";
export type ProviderModel = { name: string; features: string[]; contextTokens?: number; inputUsdPerMTok?: number; outputUsdPerMTok?: number; /** An embedding model's vector length, when declared. */ dimensions?: number };
export type Provider = {
  id: string;
  kind: string;
  capabilityKind: ProviderCapabilityKind;
  source: "tenant" | "environment" | "built-in";
  models: ProviderModel[];
  baseUrl?: string;
  apiKeySecret?: string;
  projectIds?: string[] | null;
};
export type McpEndpoint = {
  id: string;
  projectId: string;
  name: string;
  endpoint: string;
  transport: "stdio" | "http" | "sse";
  status: "connected" | "error" | "unregistered";
  lastError: string | null;
  serverName: string | null;
  serverVersion: string | null;
  toolCount: number;
  tools: { toolId: string; version: string; name: string }[];
  skipped?: { name: string; issues: { path: string; message: string }[] }[];
  lastRefreshAt: string | null;
  createdAt: string;
};
export type Member = { id: string; email: string; name: string; role: "admin" | "member" | "viewer"; status: "active" | "deactivated"; reviewerLevel: string | null; createdAt: string };

/** Every page of a list route (settings lists are short). */
async function allPages<T>(path: string, query: Record<string, string | number | boolean | undefined>, signal?: AbortSignal): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await apiFetch<Page<T>>(path, { query: { ...query, limit: 100, cursor }, signal });
    items.push(...page.data);
    cursor = page.hasMore ? page.nextCursor : undefined;
  } while (cursor && items.length < 2000);
  return items;
}

function useInvalidate(key: readonly unknown[]) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: key });
}

export const useTokens = () => useQuery({ queryKey: settingsKeys.tokens(), queryFn: ({ signal }) => allPages<Token>("/v1/tokens", {}, signal) });

export function useMintToken() {
  const invalidate = useInvalidate(settingsKeys.tokens());
  return useMutation({ mutationFn: (body: { name: string; projectId?: string }) => apiFetch<Token & { key: string }>("/v1/tokens", { method: "POST", body }), onSuccess: () => void invalidate() });
}

export function useRevokeToken() {
  const invalidate = useInvalidate(settingsKeys.tokens());
  return useMutation({ mutationFn: (id: string) => apiFetch<Token>(`/v1/tokens/${id}/revoke`, { method: "POST", body: {} }), onSuccess: () => void invalidate() });
}

export const useSecrets = () => useQuery({ queryKey: settingsKeys.secrets(), queryFn: ({ signal }) => allPages<Secret>("/v1/secrets", {}, signal) });

export function usePutSecret() {
  const invalidate = useInvalidate(settingsKeys.secrets());
  return useMutation({ mutationFn: (body: { name: string; value: string }) => apiFetch<Secret>("/v1/secrets", { method: "POST", body }), onSuccess: () => void invalidate() });
}

export function useDeleteSecret() {
  const invalidate = useInvalidate(settingsKeys.secrets());
  return useMutation({ mutationFn: (name: string) => apiFetch<{ name: string }>(`/v1/secrets/${encodeURIComponent(name)}`, { method: "DELETE" }), onSuccess: () => void invalidate() });
}

export const useProviders = (projectId: string) => useQuery({ queryKey: settingsKeys.providers(projectId), queryFn: ({ signal }) => allPages<Provider>("/v1/providers", {}, signal) });

export function useRegisterProvider() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (body: Record<string, unknown>) => apiFetch<Provider>("/v1/providers", { method: "POST", body }), onSuccess: () => void client.invalidateQueries({ queryKey: ["settings", "providers"] }) });
}

export function useDeleteProvider() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (id: string) => apiFetch<{ id: string }>(`/v1/providers/${encodeURIComponent(id)}`, { method: "DELETE" }), onSuccess: () => void client.invalidateQueries({ queryKey: ["settings", "providers"] }) });
}

export const useMcpEndpoints = (projectId: string) => useQuery({ queryKey: settingsKeys.mcp(projectId), queryFn: ({ signal }) => allPages<McpEndpoint>("/v1/mcp/endpoints", { projectId }, signal), enabled: Boolean(projectId) });

function useMcpMutation<V>(fn: (value: V) => Promise<McpEndpoint>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["settings", "mcp"] });
      void client.invalidateQueries({ queryKey: toolKeys.all });
    },
  });
}

export const useRegisterMcp = () => useMcpMutation((body: { name: string; endpoint: string; projectId: string }) => apiFetch<McpEndpoint>("/v1/mcp/endpoints", { method: "POST", body }));
export const useRefreshMcp = () => useMcpMutation((id: string) => apiFetch<McpEndpoint>(`/v1/mcp/endpoints/${id}/refresh`, { method: "POST", body: {} }));
export const useUnregisterMcp = () => useMcpMutation((id: string) => apiFetch<McpEndpoint>(`/v1/mcp/endpoints/${id}/unregister`, { method: "POST", body: {} }));

export const useMembers = () => useQuery({ queryKey: settingsKeys.members(), queryFn: ({ signal }) => allPages<Member>("/v1/members", {}, signal) });

function useMemberMutation<V>(fn: (value: V) => Promise<Member>) {
  const invalidate = useInvalidate(settingsKeys.members());
  return useMutation({ mutationFn: fn, onSuccess: () => void invalidate() });
}

export const useInviteMember = () => useMemberMutation((body: { email: string; name?: string; role: string; password: string }) => apiFetch<Member>("/v1/members", { method: "POST", body }));
export const useSetMemberRole = () => useMemberMutation(({ id, role }: { id: string; role: string }) => apiFetch<Member>(`/v1/members/${id}/role`, { method: "POST", body: { role } }));
export const useSetMemberActive = () => useMemberMutation(({ id, active }: { id: string; active: boolean }) => apiFetch<Member>(`/v1/members/${id}/${active ? "reactivate" : "deactivate"}`, { method: "POST", body: {} }));
