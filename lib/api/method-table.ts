import { allOperations } from "@/lib/api/operations";

type Template = { pattern: RegExp; methods: readonly string[] };
type Table = { exact: Map<string, readonly string[]>; templates: Template[] };

let built: Table | null = null;
function table(): Table {
  if (built) return built;
  const byPath = new Map<string, Set<string>>();
  for (const operation of allOperations) byPath.set(operation.path, (byPath.get(operation.path) ?? new Set()).add(operation.method));
  const exact = new Map<string, readonly string[]>();
  const templates: (Template & { params: number })[] = [];
  for (const [path, served] of byPath) {
    const methods = Object.freeze([...served, ...(served.has("GET") ? ["HEAD"] : [])].sort());
    const params = (path.match(/\{/g) ?? []).length;
    if (params === 0) {
      // A path without parameters is looked up as it is, with or without a trailing slash.
      exact.set(path, methods);
      exact.set(`${path}/`, methods);
    } else {
      templates.push({ pattern: new RegExp("^" + path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+") + "/?$"), methods, params });
    }
  }
  // As Next.js routes: fewer parameters win (`/v1/tools/{toolId}/versions` before `/v1/tools/{toolId}/{version}`).
  templates.sort((a, b) => a.params - b.params);
  built = { exact, templates };
  return built;
}

/**
 * The methods the API serves at this path (sorted, frozen: the same array for every caller), or null when no operation
 * has this path. A path without parameters wins over a template (`/v1/agents/validate` before `/v1/agents/{agentId}`).
 */
export function allowedMethods(pathname: string): readonly string[] | null {
  const { exact, templates } = table();
  const found = exact.get(pathname);
  if (found) return found;
  for (const template of templates) if (template.pattern.test(pathname)) return template.methods;
  return null;
}
