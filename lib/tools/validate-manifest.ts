/**
 * Validation of a Tool 1.3.0 manifest: the project's JSON Schema, then the rules a schema cannot say. Every problem
 * is reported as an issue with a JSON pointer, the shape `POST /v1/tools` returns in `details.issues`.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { isObject, issuesFromAjvErrors, jsonSchemaIssues, type Issue, type ToolTransport } from "./json-schema";
import { toolManifestSchema, type ToolManifest } from "./manifest-schema";

export type { Issue } from "./json-schema";
export type { ToolManifest } from "./manifest-schema";

/** The outcome of {@link validateToolManifest}. */
export type ManifestValidation = { ok: true; manifest: ToolManifest } | { ok: false; issues: Issue[] };

/** A parsed `mcpEndpoint`. */
export type McpEndpoint = { transport: "stdio"; command: string } | { transport: "http" | "sse"; url: URL };

type Manifest = Record<string, unknown>;
type UrlPart = "scheme" | "userinfo" | "host" | "port" | "path" | "query" | "fragment";

/** A `{name}` placeholder: braces around a name without braces, whitespace or quotes. */
const PLACEHOLDER = /\{([^{}\s"]+)\}/g;

/** Rules beyond the schema. Each reads the manifest defensively: it may also have failed the schema. */
const RULES: Array<(manifest: Manifest) => Issue[]> = [
  ioSchemaIssues,
  mcpEndpointIssues,
  handlerExclusivityIssues,
  pausesIssues,
  urlTemplateIssues,
  textBodyIssues,
  connectionAuthorizationIssues,
  allowlistIssues,
];

let manifestSchemaValidator: ValidateFunction | undefined;

/**
 * Validates a Tool 1.3.0 manifest (without the route's `projectId`) and reports every problem found. A field that
 * fails the schema gets only the schema's message, not a second one from the rules.
 */
export function validateToolManifest(manifest: unknown): ManifestValidation {
  manifestSchemaValidator ??= new Ajv2020({ allErrors: true, strict: true, discriminator: true, verbose: true }).compile(
    toolManifestSchema,
  );
  const schemaIssues = manifestSchemaValidator(manifest) ? [] : issuesFromAjvErrors(manifestSchemaValidator.errors ?? []);
  const failedPaths = new Set(schemaIssues.map((issue) => issue.path));
  const ruleIssues = isObject(manifest) ? RULES.flatMap((rule) => rule(manifest)) : [];
  const issues = uniqueIssues([...schemaIssues, ...ruleIssues.filter((issue) => !failedPaths.has(issue.path))]);
  return issues.length === 0 ? { ok: true, manifest: manifest as ToolManifest } : { ok: false, issues };
}

/**
 * Parses an `mcpEndpoint`: `mcp+stdio://<command>`, or `mcp+http://` / `mcp+sse://` followed by `host[:port]/path`
 * (read as `http://host[:port]/path`) or by a full `http(s)://` URL. Returns a message when it is malformed.
 */
export function parseMcpEndpoint(endpoint: string): McpEndpoint | string {
  const match = /^mcp\+(stdio|http|sse):\/\/(.*)$/s.exec(endpoint);
  if (!match) return "must have the form mcp+stdio://<command>, mcp+http://<url> or mcp+sse://<url>";
  const [, transport, rest] = match;
  if (transport === "stdio") {
    return rest.trim() ? { transport: "stdio", command: rest } : "mcp+stdio:// must be followed by a command";
  }
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(rest);
  const url = parseUrl(hasScheme ? rest : `http://${rest}`);
  return url && (url.protocol === "http:" || url.protocol === "https:") && url.hostname
    ? { transport: transport as "http" | "sse", url }
    : `mcp+${transport}:// must be followed by host[:port]/path or an http(s) URL`;
}

/** The `{name}` placeholders of a URL or text template, with their offsets. */
export function templatePlaceholders(template: string): Array<{ name: string; index: number }> {
  return [...template.matchAll(PLACEHOLDER)].map((match) => ({ name: match[1], index: match.index }));
}

/** `input` and `output` must compile in the dialect the transport allows. */
function ioSchemaIssues(manifest: Manifest): Issue[] {
  const transport: ToolTransport = manifest.transport === "mcp" || manifest.transport === "native" ? manifest.transport : "auto";
  return (["input", "output"] as const).flatMap((field) => {
    const schema = manifest[field];
    if (!isObject(schema)) return [];
    return jsonSchemaIssues(schema, transport).map((issue) => ({ path: `/${field}${issue.path}`, message: issue.message }));
  });
}

/** `transport: "mcp"` needs an endpoint, `"native"` forbids one, and the endpoint must be well formed. */
function mcpEndpointIssues(manifest: Manifest): Issue[] {
  const endpoint = manifest.mcpEndpoint;
  const at = (message: string) => [{ path: "/mcpEndpoint", message }];
  if (endpoint === undefined) return manifest.transport === "mcp" ? at('is required when transport is "mcp"') : [];
  if (manifest.transport === "native") return at('is not allowed when transport is "native": a native tool runs in-process');
  if (typeof endpoint !== "string") return [];
  const parsed = parseMcpEndpoint(endpoint);
  return typeof parsed === "string" ? at(parsed) : [];
}

/** A tool has a declarative `spec` or a handler artifact, never both. */
function handlerExclusivityIssues(manifest: Manifest): Issue[] {
  return manifest.spec !== undefined && manifest.codeArtifactRef !== undefined
    ? [{ path: "/spec", message: "spec and codeArtifactRef are mutually exclusive: a tool has either a declarative spec or a handler" }]
    : [];
}

/** Only a pack tool with a handler can pause. */
function pausesIssues(manifest: Manifest): Issue[] {
  if (manifest.pauses !== true) return [];
  const reason =
    manifest.spec !== undefined
      ? "a tool with a declarative spec cannot pause"
      : manifest.transport === "mcp"
        ? "an MCP tool cannot pause"
        : manifest.codeArtifactRef === undefined
          ? "a tool without a handler cannot pause"
          : undefined;
  return reason ? [{ path: "/pauses", message: `${reason}; only a pack tool with a handler (codeArtifactRef) can pause` }] : [];
}

/** The URL template is an absolute http(s) URL with declared placeholders in its path and query only. */
function urlTemplateIssues(manifest: Manifest): Issue[] {
  const template = isObject(manifest.spec) ? manifest.spec.urlTemplate : undefined;
  if (typeof template !== "string" || template === "") return [];
  const braces = braceProblems(template);
  const messages = braces.length > 0 ? braces : [...undeclaredPlaceholders(template, manifest), ...placementProblems(template)];
  return messages.map((message) => ({ path: "/spec/urlTemplate", message }));
}

/** A text request body's placeholders must name input properties. */
function textBodyIssues(manifest: Manifest): Issue[] {
  const body = isObject(manifest.spec) ? manifest.spec.requestBody : undefined;
  if (!isObject(body) || body.kind !== "text" || typeof body.template !== "string") return [];
  return undeclaredPlaceholders(body.template, manifest).map((message) => ({ path: "/spec/requestBody/template", message }));
}

/** An authorization of kind "connection" names a connection the tool declares. */
function connectionAuthorizationIssues(manifest: Manifest): Issue[] {
  const authorization = isObject(manifest.spec) ? manifest.spec.authorization : undefined;
  if (!isObject(authorization) || authorization.kind !== "connection" || typeof authorization.connection !== "string") return [];
  const connections = isObject(manifest.needsSpec) ? manifest.needsSpec.connections : undefined;
  return isObject(connections) && Object.hasOwn(connections, authorization.connection)
    ? []
    : [{ path: "/spec/authorization/connection", message: `connection "${authorization.connection}" is not declared in needsSpec.connections` }];
}

/** Each allowlisted host is a host name, host:port or IP address. */
function allowlistIssues(manifest: Manifest): Issue[] {
  const network = manifest.network;
  if (!isObject(network) || network.kind !== "allowlist" || !Array.isArray(network.hosts)) return [];
  return network.hosts.flatMap((host, index) => {
    const problem = typeof host === "string" && host !== "" ? hostProblem(host) : undefined;
    return problem ? [{ path: `/network/hosts/${index}`, message: problem }] : [];
  });
}

function hostProblem(host: string): string | undefined {
  const expected = "must be a host name, host:port or IP address";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) return `${expected}, without a scheme`;
  if (/[/?#@\s]/.test(host)) return `${expected}, without a path, query, credentials or spaces`;
  const isBareIpv6 = !host.startsWith("[") && (host.match(/:/g)?.length ?? 0) > 1;
  return parseUrl(`http://${isBareIpv6 ? `[${host}]` : host}`)?.hostname ? undefined : `"${host}" ${expected}`;
}

function braceProblems(template: string): string[] {
  const masked = template.replace(PLACEHOLDER, (placeholder) => "x".repeat(placeholder.length));
  const stray = masked.search(/[{}]/);
  return stray < 0 ? [] : [`unbalanced "${masked[stray]}" at position ${stray}; a placeholder is written {name}`];
}

/** Placeholders not declared in `input.properties` (none when `input` itself is broken: the schema reports that). */
function undeclaredPlaceholders(template: string, manifest: Manifest): string[] {
  if (!isObject(manifest.input)) return [];
  const properties = isObject(manifest.input.properties) ? manifest.input.properties : {};
  const names = new Set(templatePlaceholders(template).map((placeholder) => placeholder.name));
  return [...names]
    .filter((name) => !Object.hasOwn(properties, name))
    .map((name) => `placeholder {${name}} is not a property declared in input.properties`);
}

/** Placeholders only in the path and query, and the template an absolute http(s) URL once they are filled in. */
function placementProblems(template: string): string[] {
  const filled = template.replace(PLACEHOLDER, (placeholder) => "x".repeat(placeholder.length));
  const partAt = urlPartLocator(filled);
  const absoluteUrl = "must be an absolute http(s) URL, such as https://api.example.com/items/{id}";
  if (!partAt) return [absoluteUrl];
  const misplaced = templatePlaceholders(template)
    .map(({ name, index }) => ({ name, part: partAt(index) }))
    .filter(({ part }) => part !== "path" && part !== "query")
    .map(({ name, part }) => `placeholder {${name}} is in the ${part} part of the URL; placeholders are allowed only in the path and query`);
  if (misplaced.length > 0) return misplaced;
  const url = parseUrl(filled);
  return url && (url.protocol === "http:" || url.protocol === "https:") && url.hostname ? [] : [absoluteUrl];
}

/** A function giving the URL part of each offset of `url`, or undefined when `url` does not start with "scheme://host". */
function urlPartLocator(url: string): ((offset: number) => UrlPart) | undefined {
  const scheme = /^[^:/?#]+:\/\//.exec(url);
  if (!scheme) return undefined;
  const authorityStart = scheme[0].length;
  const authorityEnd = indexOrEnd(url, /[/?#]/, authorityStart);
  if (authorityEnd === authorityStart) return undefined;
  const queryStart = indexOrEnd(url, /[?#]/, authorityEnd);
  const fragmentStart = indexOrEnd(url, /#/, authorityEnd);
  const hostStart = authorityStart + url.slice(authorityStart, authorityEnd).lastIndexOf("@") + 1;
  const hostAndPort = url.slice(hostStart, authorityEnd);
  const colon = hostAndPort.lastIndexOf(":");
  const portStart = colon > hostAndPort.lastIndexOf("]") ? hostStart + colon : authorityEnd;
  return (offset) =>
    offset < authorityStart ? "scheme"
    : offset < hostStart ? "userinfo"
    : offset < portStart ? "host"
    : offset < authorityEnd ? "port"
    : offset < queryStart ? "path"
    : offset < fragmentStart ? "query"
    : "fragment";
}

function indexOrEnd(text: string, pattern: RegExp, from: number): number {
  const index = text.slice(from).search(pattern);
  return index < 0 ? text.length : from + index;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function uniqueIssues(issues: Issue[]): Issue[] {
  const byKey = new Map(issues.map((issue) => [`${issue.path}\u0000${issue.message}`, issue]));
  return [...byKey.values()];
}
