/**
 * Validation of a Tool 1.3.0 manifest: the project's JSON Schema, then the rules a schema cannot say. Every problem
 * is reported as an issue with a JSON pointer, the shape `POST /v1/tools` returns in `details.issues`.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { escapePointer, isObject, issuesFromAjvErrors, jsonSchemaIssues, type Issue, type ToolTransport } from "./json-schema";
import { CATALOG_ID_PATTERN, CATALOG_ID_PATTERN_MESSAGE } from "@/lib/ids";
import { TOOL_VERSION_PATTERN, toolManifestSchema, type ToolManifest } from "./manifest-schema";

export type { Issue } from "./json-schema";
export type { ToolManifest } from "./manifest-schema";

/** The outcome of {@link validateToolManifest}. */
export type ManifestValidation = { ok: true; manifest: ToolManifest } | { ok: false; issues: Issue[] };

/** What the server allows beyond the schema. */
export type ManifestValidationOptions = {
  /**
   * Whether a `filesystem` codeArtifactRef (a handler file on the server's own disk, the local-development shape)
   * is accepted. Default true; a production server passes {@link filesystemHandlersAllowed}.
   */
  allowFilesystemHandlers?: boolean;
  /**
   * Whether a file exists at an absolute path: when given, a `filesystem` handler's `modulePath` must name an
   * existing file (checked only where filesystem handlers are accepted). The registry passes a check of its disk.
   */
  modulePathExists?: (path: string) => boolean;
};

/**
 * Headers the HTTP runtime sets itself (lower case): a spec may not declare them, nor name one as its authorization
 * header. `authorization` joins them when the spec has an `authorization` of kind bearer or connection.
 */
export const RUNTIME_SET_HEADERS: ReadonlySet<string> = new Set(["host", "content-length", "transfer-encoding", "connection", "idempotency-key"]);

/**
 * The seed's rule for `filesystem` handlers: production servers reject them. Production is `NODE_ENV=production`
 * (what `npm start` / `next start` run with); `KINDGI_ALLOW_FILESYSTEM_HANDLERS=1` allows them there anyway.
 */
export function filesystemHandlersAllowed(env: Record<string, string | undefined> = process.env): boolean {
  return env.NODE_ENV !== "production" || env.KINDGI_ALLOW_FILESYSTEM_HANDLERS === "1";
}

/** Messages in words for the schema's patterns. */
const PATTERN_MESSAGES: Record<string, string> = {
  [CATALOG_ID_PATTERN]: CATALOG_ID_PATTERN_MESSAGE,
  [TOOL_VERSION_PATTERN]: 'must be a version MAJOR.MINOR.PATCH such as "1.2.3", without leading zeros',
};

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
  transportIssues,
  handlerExclusivityIssues,
  secretEnvNameIssues,
  pausesIssues,
  urlTemplateIssues,
  textBodyIssues,
  connectionAuthorizationIssues,
  allowlistIssues,
  successStatusIssues,
  runtimeHeaderIssues,
  modulePathIssues,
];

let manifestSchemaValidator: ValidateFunction | undefined;

/**
 * Validates a Tool 1.3.0 manifest (without the route's `projectId`) and reports every problem found. A field that
 * fails the schema gets only the schema's message, not a second one from the rules.
 */
export function validateToolManifest(manifest: unknown, options: ManifestValidationOptions = {}): ManifestValidation {
  manifestSchemaValidator ??= new Ajv2020({ allErrors: true, strict: true, discriminator: true, verbose: true }).compile(
    toolManifestSchema,
  );
  const schemaIssues = manifestSchemaValidator(manifest) ? [] : issuesFromAjvErrors(manifestSchemaValidator.errors ?? [], PATTERN_MESSAGES);
  const failedPaths = new Set(schemaIssues.map((issue) => issue.path));
  const modulePathExists = options.modulePathExists;
  const serverRules =
    options.allowFilesystemHandlers === false
      ? [filesystemHandlerIssues]
      : modulePathExists
        ? [(candidate: Manifest) => missingModuleIssues(candidate, modulePathExists)]
        : [];
  const ruleIssues = isObject(manifest) ? [...RULES, ...serverRules].flatMap((rule) => rule(manifest)) : [];
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

/** `transport: "mcp"` needs an endpoint, and the endpoint must be well formed. */
function mcpEndpointIssues(manifest: Manifest): Issue[] {
  const endpoint = manifest.mcpEndpoint;
  const at = (message: string) => [{ path: "/mcpEndpoint", message }];
  if (endpoint === undefined) return manifest.transport === "mcp" ? at('is required when transport is "mcp"') : [];
  if (typeof endpoint !== "string") return [];
  const parsed = parseMcpEndpoint(endpoint);
  return typeof parsed === "string" ? at(parsed) : [];
}

/**
 * `transport: "native"` requires running in this server's process: an `mcpEndpoint` runs elsewhere, and so does a
 * handler at a `sandbox` level other than `none` (a worker thread or a child process). An HTTP `spec` runs in process
 * (only its request leaves). `transport: "mcp"` requires MCP: a `spec` or a handler would never run.
 */
function transportIssues(manifest: Manifest): Issue[] {
  const at = (message: string) => [{ path: "/transport", message }];
  if (manifest.transport === "native") {
    if (manifest.mcpEndpoint !== undefined) return at('"native" requires in-process execution, and a tool with an mcpEndpoint runs on its MCP server; remove mcpEndpoint or use "auto"');
    if (manifest.codeArtifactRef !== undefined && manifest.sandbox !== undefined && manifest.sandbox !== "none")
      return at(`"native" requires in-process execution, and a handler at sandbox "${String(manifest.sandbox)}" runs in a sandbox of its own; use sandbox "none" or transport "auto"`);
  }
  if (manifest.transport === "mcp") {
    const other = manifest.spec !== undefined ? "an HTTP spec" : manifest.codeArtifactRef !== undefined ? "a handler (codeArtifactRef)" : undefined;
    if (other) return at(`"mcp" requires MCP execution on the mcpEndpoint, so ${other} would never run; remove it or use "auto"`);
  }
  return [];
}

/**
 * A `needsSpec.secrets` entry's `envName` is the name the handler reads the resolved secret under in `context.env`:
 * a non-empty string, not also a `needsSpec.env` name nor another secret's `envName`.
 */
function secretEnvNameIssues(manifest: Manifest): Issue[] {
  const needsSpec = isObject(manifest.needsSpec) ? manifest.needsSpec : undefined;
  const secrets = needsSpec && isObject(needsSpec.secrets) ? needsSpec.secrets : undefined;
  if (!secrets) return [];
  const envNames = new Set(isObject(needsSpec?.env) ? Object.keys(needsSpec.env) : []);
  const taken = new Map<string, string>();
  const issues: Issue[] = [];
  for (const [key, entry] of Object.entries(secrets)) {
    if (!isObject(entry) || entry.envName === undefined) continue;
    const path = `/needsSpec/secrets/${escapePointer(key)}/envName`;
    if (typeof entry.envName !== "string" || entry.envName === "") issues.push({ path, message: "must be a non-empty string: the name the handler reads the secret under in context.env" });
    else if (envNames.has(entry.envName)) issues.push({ path, message: `${JSON.stringify(entry.envName)} is also a needsSpec.env name; context.env holds one value per name` });
    else if (taken.has(entry.envName)) issues.push({ path, message: `${JSON.stringify(entry.envName)} is also the envName of secret ${JSON.stringify(taken.get(entry.envName))}` });
    else taken.set(entry.envName, key);
  }
  return issues;
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

/** `successStatus` is a range: `min` at most `max`. */
function successStatusIssues(manifest: Manifest): Issue[] {
  const range = isObject(manifest.spec) ? manifest.spec.successStatus : undefined;
  const isStatus = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599;
  if (!isObject(range) || !isStatus(range.min) || !isStatus(range.max) || range.min <= range.max) return [];
  return [{ path: "/spec/successStatus", message: `min (${range.min}) must not be greater than max (${range.max})` }];
}

/**
 * The spec's headers and its authorization header name none the runtime sets itself: Host, Content-Length,
 * Transfer-Encoding, Connection, Idempotency-Key, and Authorization when the spec has a bearer or connection
 * authorization (or the authorization header's own name when it is of kind header).
 */
function runtimeHeaderIssues(manifest: Manifest): Issue[] {
  const spec = isObject(manifest.spec) ? manifest.spec : undefined;
  if (!spec) return [];
  const authorization = isObject(spec.authorization) ? spec.authorization : undefined;
  const authHeader =
    authorization?.kind === "bearer" || authorization?.kind === "connection"
      ? "authorization"
      : authorization?.kind === "header" && typeof authorization.headerName === "string"
        ? authorization.headerName.toLowerCase()
        : undefined;
  const issues: Issue[] = [];
  if (authorization?.kind === "header" && typeof authorization.headerName === "string" && RUNTIME_SET_HEADERS.has(authHeader!))
    issues.push({ path: "/spec/authorization/headerName", message: `${authorization.headerName} is set by the runtime and cannot carry the authorization` });
  (Array.isArray(spec.headers) ? spec.headers : []).forEach((header, index) => {
    const name = isObject(header) && typeof header.name === "string" ? header.name : undefined;
    if (!name) return;
    const key = name.toLowerCase();
    if (RUNTIME_SET_HEADERS.has(key)) issues.push({ path: `/spec/headers/${index}/name`, message: `${name} is set by the runtime and cannot be declared in the spec` });
    else if (key === authHeader)
      issues.push({ path: `/spec/headers/${index}/name`, message: `${name} is set by the runtime from the spec's authorization and cannot also be declared as a header` });
  });
  return issues;
}

/** A `filesystem` handler's `modulePath` is an absolute path on the server's host. */
function modulePathIssues(manifest: Manifest): Issue[] {
  const ref = manifest.codeArtifactRef;
  if (!isObject(ref) || ref.kind !== "filesystem" || typeof ref.modulePath !== "string" || ref.modulePath === "") return [];
  return isAbsolutePath(ref.modulePath)
    ? []
    : [{ path: "/codeArtifactRef/modulePath", message: `must be an absolute path to the handler file (such as /srv/packs/acme/handler.js), not ${JSON.stringify(ref.modulePath)}` }];
}

/** A `filesystem` handler's `modulePath` names a file that exists on the server's host. */
function missingModuleIssues(manifest: Manifest, exists: (path: string) => boolean): Issue[] {
  const ref = manifest.codeArtifactRef;
  if (!isObject(ref) || ref.kind !== "filesystem" || typeof ref.modulePath !== "string" || !isAbsolutePath(ref.modulePath)) return [];
  return exists(ref.modulePath) ? [] : [{ path: "/codeArtifactRef/modulePath", message: `no handler file exists at ${JSON.stringify(ref.modulePath)} on this server` }];
}

/** Refused on a production server unless it allows filesystem handlers ({@link filesystemHandlersAllowed}). */
function filesystemHandlerIssues(manifest: Manifest): Issue[] {
  return isObject(manifest.codeArtifactRef) && manifest.codeArtifactRef.kind === "filesystem"
    ? [{
        path: "/codeArtifactRef",
        message:
          'a "filesystem" handler is the local-development shape and this production server refuses it; use an "oci" artifact ' +
          "(or set KINDGI_ALLOW_FILESYSTEM_HANDLERS=1 on the server)",
      }]
    : [];
}

/** A POSIX absolute path, or a Windows one with a drive letter. */
function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path);
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
