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
