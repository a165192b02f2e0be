/**
 * TanStack Query keys, one factory per resource. A key starts with the resource and, for project-scoped
 * resources, the project id, so `invalidateQueries({ queryKey: toolKeys.all })` clears every tool query.
 * Keep each factory a separate `export const`.
 */

export const projectKeys = {
  all: ["projects"] as const,
  list: () => [...projectKeys.all, "list"] as const,
  detail: (projectId: string) => [...projectKeys.all, "detail", projectId] as const,
};

export const identityKeys = {
  all: ["identity"] as const,
  whoami: () => [...identityKeys.all, "whoami"] as const,
};

/** Agents: the list, one agent, its versions, and the editor's live checks of an unsaved definition. */
export const agentKeys = {
  all: ["agents"] as const,
  list: (projectId: string, filters: { q?: string } = {}) => ["agents", "list", projectId, filters] as const,
  detail: (agentId: string) => ["agents", "detail", agentId] as const,
  version: (agentId: string, version: string) => ["agents", "detail", agentId, "version", version] as const,
  validation: (projectId: string, draft: unknown) => ["agents", "validation", projectId, draft] as const,
  render: (draft: unknown, values: unknown) => ["agents", "render", draft, values] as const,
  form: (parameters: unknown) => ["agents", "form", parameters] as const,
  toolOptions: (projectId: string, q: string) => ["agents", "tool-options", projectId, q] as const,
};

/** Tool lists are per project and filters; a tool's detail and versions are per tool id. */
export const toolKeys = {
  all: ["tools"] as const,
  lists: () => [...toolKeys.all, "list"] as const,
  list: (projectId: string, filters: { q?: string; effect?: string; mutating?: boolean; transport?: string } = {}) => [...toolKeys.lists(), projectId, filters] as const,
  details: () => [...toolKeys.all, "detail"] as const,
  detail: (toolId: string) => [...toolKeys.details(), toolId] as const,
  version: (toolId: string, version: string) => [...toolKeys.detail(toolId), "version", version] as const,
};

/** Runs: lists per project and filters, the charts' recent runs, one run and its journal. */
export const runKeys = {
  all: ["runs"] as const,
  list: (projectId: string, filters: Record<string, string | undefined>) => ["runs", "list", projectId, filters] as const,
  recent: (projectId: string, max: number) => ["runs", "recent", projectId, max] as const,
  detail: (runId: string) => ["runs", "detail", runId] as const,
  journal: (runId: string) => ["runs", "detail", runId, "journal"] as const,
};

/** Settings: the tenant-wide resources (keys, secrets, providers, MCP endpoints, members). */
export const settingsKeys = {
  all: ["settings"] as const,
  tokens: () => ["settings", "tokens"] as const,
  secrets: () => ["settings", "secrets"] as const,
  providers: (projectId: string) => ["settings", "providers", projectId] as const,
  mcp: (projectId: string) => ["settings", "mcp", projectId] as const,
  members: () => ["settings", "members"] as const,
};

/** Conversations of an agent (the playground's "continue one"). */
export const conversationKeys = {
  all: ["conversations"] as const,
  list: (projectId: string, agentId: string) => ["conversations", "list", projectId, agentId] as const,
  messages: (conversationId: string) => ["conversations", "messages", conversationId] as const,
};

/** One run's approvals, every status (the playground's cards); under "approvals" so a decision refreshes them. */
export const runApprovalKeys = {
  list: (runId: string) => ["approvals", "run", runId] as const,
};

/** The unfinished runs of a conversation (the playground shows them again when the conversation is reopened). */
export const conversationOpenRunKeys = {
  list: (projectId: string, conversationId: string) => ["runs", "conversation-open", projectId, conversationId] as const,
};

/** Automation settings: approval grants, schedules (and their fires), webhooks (and their deliveries), the audit log, notification endpoints. */
export const automationKeys = {
  all: ["automation"] as const,
  grants: (projectId: string, filters: { revoked?: boolean } = {}) => ["automation", "grants", projectId, filters] as const,
  schedules: (projectId: string) => ["automation", "schedules", projectId] as const,
  fires: (scheduleId: string) => ["automation", "fires", scheduleId] as const,
  webhooks: (projectId: string) => ["automation", "webhooks", projectId] as const,
  deliveries: (webhookId: string) => ["automation", "deliveries", webhookId] as const,
  audit: (filters: Record<string, string | undefined>) => ["automation", "audit", filters] as const,
  notificationEndpoints: (projectId: string) => ["automation", "notification-endpoints", projectId] as const,
  notificationDeliveries: (endpointId: string) => ["automation", "notification-deliveries", endpointId] as const,
};

/** Toolsets of a project (the MCP server page) and the tool and agent suggestions of its form. */
export const toolsetKeys = {
  all: ["toolsets"] as const,
  list: (projectId: string) => ["toolsets", "list", projectId] as const,
  options: (projectId: string, kind: "tools" | "agents", q: string) => ["toolsets", "options", projectId, kind, q] as const,
};
