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

/** Tool lists are per project and filters; a tool's detail and versions are per tool id. */
export const toolKeys = {
  all: ["tools"] as const,
  lists: () => [...toolKeys.all, "list"] as const,
  list: (projectId: string, filters: { q?: string; effect?: string; mutating?: boolean; transport?: string } = {}) => [...toolKeys.lists(), projectId, filters] as const,
  details: () => [...toolKeys.all, "detail"] as const,
  detail: (toolId: string) => [...toolKeys.details(), toolId] as const,
  version: (toolId: string, version: string) => [...toolKeys.detail(toolId), "version", version] as const,
};
