import { allOperations } from "@/lib/api/operations";

type Template = { pattern: RegExp; methods: Set<string>; params: number };

let templates: Template[] | null = null;
function table(): Template[] {
  if (templates) return templates;
  const byPath = new Map<string, Set<string>>();
  for (const operation of allOperations) byPath.set(operation.path, (byPath.get(operation.path) ?? new Set()).add(operation.method));
  templates = [...byPath].map(([path, methods]) => ({
    pattern: new RegExp("^" + path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+") + "/?$"),
    methods: new Set([...methods, ...(methods.has("GET") ? ["HEAD"] : [])]),
    params: (path.match(/\{/g) ?? []).length,
  }));
  // As Next.js routes: a static segment wins over a parameter (`/v1/agents/validate` before `/v1/agents/{agentId}`).
  templates.sort((a, b) => a.params - b.params);
  return templates;
}

/** The methods the API serves at this path, or null when no operation has this path. */
export function allowedMethods(pathname: string): string[] | null {
  const match = table().find((template) => template.pattern.test(pathname));
  return match ? [...match.methods].sort() : null;
}
