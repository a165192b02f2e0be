/**
 * The `mcp` invoker: calls a tool on its endpoint's pooled client.
 *
 * - A call waits at most `KINDGI_MCP_TIMEOUT_MS` (default 60 s), and stops when the run's signal aborts.
 * - A result with `isError: true` is a tool error whose message is the result's text (the model sees it).
 * - `structuredContent` is the output, validated against the tool's `output` schema. Otherwise the output is
 *   `{content: [...]}` ({@link MCP_CONTENT_OUTPUT_SCHEMA}): text as `{type: "text", text}`, images and audio as
 *   `{type, mimeType, data}` (base64), embedded resources as `{type: "resource", uri, mimeType?, text? | blob?}`,
 *   resource links as `{type: "resource_link", uri, name, mimeType?, description?}`.
 * - The tool's `needsSpec.connections`, resolved for the call, go with the `tools/call` request in `params._meta`
 *   under {@link MCP_CONNECTIONS_META_KEY} (`{<name>: {app, permissions, owner, accessToken}}`), as an HTTP tool's
 *   `connection` authorization sends its token; their tokens are redacted from the result and error messages.
 * - A connection that dies while a call is in flight leaves the outcome unknown: a read-only tool (`mutating: false`)
 *   is called once more on a new connection; a mutating one fails (never sent twice blindly). A connection found dead
 *   before the call is simply replaced.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import type { ToolManifest } from "../manifest-schema";
import { getValidator, isObject } from "../json-schema";
import { dropConnection, errorMessage, McpConnectError, mcpTimeoutMs, pooledConnection, poolKey, type McpConnection, type McpConnectionConfig } from "./connection";

/** The output of an MCP tool that returns content rather than `structuredContent`. */
export const MCP_CONTENT_OUTPUT_SCHEMA = {
  type: "object",
  required: ["content"],
  properties: {
    content: {
      type: "array",
      items: {
        type: "object",
        required: ["type"],
        properties: {
          type: { enum: ["text", "image", "audio", "resource", "resource_link"] },
          text: { type: "string" },
          mimeType: { type: "string" },
          data: { type: "string", description: "base64" },
          uri: { type: "string" },
          name: { type: "string" },
          blob: { type: "string", description: "base64" },
        },
      },
    },
  },
} as const;

const MAX_ERROR_CHARS = 4000;

/** The `params._meta` key a `tools/call` request carries the tool's resolved connections under. */
export const MCP_CONNECTIONS_META_KEY = "dev.kindgi/connections";

/** A connection as the MCP server receives it. */
export type McpCallConnection = { app: string; permissions: string[]; owner: "person" | "company"; accessToken: string };

export type McpInvokeContext = {
  tenantId: string;
  /** The endpoint's connection settings (headers with their secrets resolved), read when a connection is needed. */
  config(): Promise<McpConnectionConfig>;
  signal?: AbortSignal;
  /** The tool's `needsSpec.connections`, resolved for this call, by the tool's names for them. */
  connections?: Readonly<Record<string, McpCallConnection>>;
};

export type McpInvokeResult =
  | { ok: true; output: unknown }
  | { ok: false; error: { kind: "invalid-arguments" | "tool-error"; reason: string; message: string } };

/** The MCP name of a tool: `metadata.mcpToolName`, else the id after its first `.` (the endpoint name). */
export function mcpToolName(manifest: Pick<ToolManifest, "id" | "metadata">): string {
  const named = (manifest.metadata as Record<string, unknown> | undefined)?.mcpToolName;
  if (typeof named === "string" && named) return named;
  const dot = manifest.id.indexOf(".");
  return dot >= 0 ? manifest.id.slice(dot + 1) : manifest.id;
}

class LostConnection extends Error {}

const connectFailureReason: Record<McpConnectError["kind"], string> = {
  "stdio-disabled": "mcp-stdio-disabled",
  "network-denied": "network-denied",
  "connection-failed": "mcp-connection-failed",
  "sandbox-unavailable": "sandbox-unavailable",
};

const fail = (reason: string, message: string): McpInvokeResult => ({ ok: false, error: { kind: "tool-error", reason, message } });

/** Invokes an MCP tool once (or twice, for a read-only tool whose connection died mid-call). Never throws. */
export async function invokeMcpTool(manifest: ToolManifest, input: unknown, context: McpInvokeContext): Promise<McpInvokeResult> {
  const name = mcpToolName(manifest);
  let config: McpConnectionConfig;
  try {
    // An MCP tool without a `network` policy reads as `unrestricted` (public addresses), as for handlers.
    config = { ...(await context.config()), network: manifest.network ?? { kind: "unrestricted" } };
  } catch (error) {
    return fail("mcp-connection-failed", `the MCP endpoint's settings could not be read: ${errorMessage(error)}`);
  }
  const key = poolKey(context.tenantId, config);
  const readOnly = manifest.mutating === false;
  for (let attempt = 1; ; attempt++) {
    let connection: McpConnection;
    try {
      connection = await pooledConnection(key, config);
    } catch (error) {
      if (error instanceof McpConnectError) return fail(connectFailureReason[error.kind], error.message);
      return fail("mcp-connection-failed", errorMessage(error));
    }
    try {
      return redactTokens(await callOnce(manifest, name, input, connection, context), Object.values(context.connections ?? {}).map((used) => used.accessToken));
    } catch (error) {
      if (!(error instanceof LostConnection)) throw error;
      await dropConnection(key, connection);
      if (!readOnly) {
        return fail("mcp-connection-lost", `the connection to the MCP server was lost while ${manifest.id} was running; it is mutating, so it was not sent again (its outcome is unknown): ${error.message}`);
      }
      if (attempt >= 2) return fail("mcp-connection-lost", `the connection to the MCP server was lost twice while ${manifest.id} was running: ${error.message}`);
    }
  }
}

async function callOnce(manifest: ToolManifest, name: string, input: unknown, connection: McpConnection, context: McpInvokeContext): Promise<McpInvokeResult> {
  const timeoutMs = mcpTimeoutMs();
  const signal = context.signal;
  const connections = context.connections ?? {};
  const meta = Object.keys(connections).length ? { _meta: { [MCP_CONNECTIONS_META_KEY]: connections } } : {};
  let result: Awaited<ReturnType<McpConnection["client"]["callTool"]>>;
  try {
    result = await connection.client.callTool({ name, arguments: isObject(input) ? input : {}, ...meta }, undefined, { timeout: timeoutMs, signal });
  } catch (error) {
    if (signal?.aborted) return fail("cancelled", "the call was cancelled before the MCP server answered");
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return fail("timeout", `the MCP server did not answer within ${timeoutMs} ms`);
    if (isLostConnection(error, connection)) throw new LostConnection(errorMessage(error));
    if (error instanceof McpError && error.code === ErrorCode.InvalidParams) return { ok: false, error: { kind: "invalid-arguments", reason: "invalid-arguments", message: `the MCP server refused the arguments: ${error.message}` } };
    return fail("mcp-error", `the MCP server answered with an error: ${errorMessage(error)}`);
  }
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError) {
    const text = content.flatMap((item) => (isObject(item) && item.type === "text" && typeof item.text === "string" ? [item.text] : [])).join("\n");
    return fail("mcp-tool-error", (text || "the MCP tool reported an error without text").slice(0, MAX_ERROR_CHARS));
  }
  const output = result.structuredContent !== undefined ? result.structuredContent : { content: content.map(mapContent) };
  const validate = getValidator(manifest.output as Record<string, unknown>, "mcp");
  const checked = validate(output);
  if (!checked.ok) return fail("output-invalid", `output does not match the tool's output schema: ${checked.issues.map((issue) => `${issue.path || "/"} ${issue.message}`).join("; ")}`);
  return { ok: true, output: checked.value };
}

/** The result with every access token of the call's connections replaced by `[redacted]` (an echoing server shows none). */
function redactTokens(result: McpInvokeResult, tokens: readonly string[]): McpInvokeResult {
  const secrets = tokens.filter(Boolean);
  if (!secrets.length) return result;
  const text = (value: string) => secrets.reduce((redacted, secret) => redacted.split(secret).join("[redacted]"), value);
  const deep = (value: unknown): unknown =>
    typeof value === "string" ? text(value)
    : Array.isArray(value) ? value.map(deep)
    : isObject(value) ? Object.fromEntries(Object.entries(value).map(([key, item]) => [text(key), deep(item)]))
    : value;
  return result.ok ? { ok: true, output: deep(result.output) } : { ok: false, error: { ...result.error, message: text(result.error.message) } };
}

/** A content item in the documented result shape. */
function mapContent(item: unknown): Record<string, unknown> {
  if (!isObject(item)) return { type: "text", text: String(item) };
  switch (item.type) {
    case "text":
      return { type: "text", text: String(item.text ?? "") };
    case "image":
    case "audio":
      return { type: item.type, mimeType: item.mimeType, data: item.data };
    case "resource": {
      const resource = isObject(item.resource) ? item.resource : {};
      return { type: "resource", uri: resource.uri, ...(resource.mimeType !== undefined && { mimeType: resource.mimeType }), ...(resource.text !== undefined && { text: resource.text }), ...(resource.blob !== undefined && { blob: resource.blob }) };
    }
    case "resource_link":
      return { type: "resource_link", uri: item.uri, name: item.name, ...(item.mimeType !== undefined && { mimeType: item.mimeType }), ...(item.description !== undefined && { description: item.description }) };
    default:
      return { type: "text", text: JSON.stringify(item) };
  }
}

/** Whether an error means the connection (process or HTTP session) is gone, so the outcome of the call is unknown. */
function isLostConnection(error: unknown, connection: McpConnection): boolean {
  if (connection.closed) return true;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return true;
  if (error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400)) return true;
  if (error instanceof SseError) return true;
  const message = errorMessage(error);
  return error instanceof TypeError || /ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|fetch failed|Not connected|session/i.test(message);
}
