/**
 * The egress proxy of one sandbox: an HTTP proxy in the server's process, listening on a Unix socket in a folder of
 * its own that the sandbox sees at `/run/kindgi-egress` (the sandbox has no network; this socket is its only way
 * out). It applies the tool's `network` policy exactly as `context.fetch` does (lib/tools/handler/policy-fetch.ts):
 * {@link checkDestination} on every request, then a connection to the checked address only ({@link pinnedLookup}).
 *
 * - An absolute-URI request (`GET http://host/path`) is sent on and its answer streamed back; a redirect is passed
 *   back as it is (the sandbox's fetch follows it with a new request, checked again).
 * - `CONNECT host:port` answers 200 and pipes both ways (TCP, or TLS the sandbox wraps itself).
 * - A refusal answers 403 (`host-unresolvable`: 502) with the header `x-kindgi-egress: refused` and a JSON body
 *   `{code, message}`, `code` being `network-denied` or `host-unresolvable`.
 * - Limits: {@link MAX_CONNECTIONS} at once, {@link MAX_BYTES} through one connection, {@link IDLE_MS} of silence.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import type { NetworkPolicy } from "@/lib/tools/manifest-schema";
import { checkDestination, pinnedLookup, ToolNetworkError, type Destination } from "@/lib/tools/network-policy";
import { EGRESS_LAUNCHER, EGRESS_PREAMBLE } from "./egress-preamble";

/** Connections (requests or tunnels) one sandbox may hold open at once. */
const MAX_CONNECTIONS = 64;
/** Bytes, both directions, through one request or tunnel. */
const MAX_BYTES = 256 * 1024 * 1024;
/** A request or tunnel with nothing sent either way for this long is closed. */
const IDLE_MS = 60_000;

/** Hop-by-hop headers, not sent on (RFC 9110 §7.6.1). */
const HOP_HEADERS = new Set(["connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"]);

export type EgressProxy = {
  /** The folder to bind into the sandbox (socket, preamble and launcher). */
  directory: string;
  /** Stops listening, ends every connection and removes the folder. */
  close(): void;
};

/**
 * The folder under which every sandbox's egress folder is made: sandboxes that see the host's filesystem (MCP stdio
 * servers) get an empty folder here instead, so that none reaches another's socket.
 */
export function egressRoot(): string {
  return join(tmpdir(), "kindgi-egress");
}

/** Starts the egress proxy of one sandbox, under `policy` (absent = `unrestricted`, as for `context.fetch`). */
export async function startEgressProxy(policy: NetworkPolicy | undefined): Promise<EgressProxy> {
  const root = egressRoot();
  mkdirSync(root, { recursive: true, mode: 0o711 });
  const directory = mkdtempSync(join(root, "sandbox-"));
  // The sandbox's user (65534) reads the folder and connects to the socket.
  chmodSync(directory, 0o755);
  writeFileSync(join(directory, "preamble.mjs"), EGRESS_PREAMBLE, { mode: 0o644 });
  writeFileSync(join(directory, "launcher.mjs"), EGRESS_LAUNCHER, { mode: 0o644 });
  const sockets = new Set<Duplex>();
  // An http.Server of its own: not `http.createServer`, which the server's HTTP front wraps for the API's routes.
  const server = new http.Server((request, response) => void forward(policy, request, response));
  server.on("connect", (request: http.IncomingMessage, client: Duplex, head: Buffer) => void tunnel(policy, request, client, head));
  server.on("connection", (socket: net.Socket) => {
    if (sockets.size >= MAX_CONNECTIONS) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  const socketPath = join(directory, "proxy.sock");
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o666);
  let closed = false;
  return {
    directory,
    close() {
      if (closed) return;
      closed = true;
      server.close();
      for (const socket of sockets) socket.destroy();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The destination of a request, checked; or the refusal already answered. */
async function checked(policy: NetworkPolicy | undefined, url: URL): Promise<Destination | { refused: { status: number; code: string; message: string } }> {
  try {
    return await checkDestination(url, policy);
  } catch (error) {
    if (error instanceof ToolNetworkError) return { refused: { status: error.code === "network-denied" ? 403 : 502, code: error.code, message: error.message } };
    return { refused: { status: 502, code: "connection-failed", message: error instanceof Error ? error.message : String(error) } };
  }
}

function refusalHead(status: number, code: string, message: string): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({ code, message });
  return { headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "x-kindgi-egress": "refused", connection: "close" }, body };
}

/** Counts the bytes through a request or tunnel and closes it past {@link MAX_BYTES}; closes it when idle. */
function bounded(sockets: Array<net.Socket | Duplex>, stop: () => void): (length: number) => void {
  let total = 0;
  for (const socket of sockets) if (socket instanceof net.Socket) socket.setTimeout(IDLE_MS, stop);
  return (length) => {
    total += length;
    if (total > MAX_BYTES) stop();
  };
}

async function forward(policy: NetworkPolicy | undefined, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  let url: URL;
  try {
    url = new URL(request.url ?? "");
  } catch {
    const { headers, body } = refusalHead(400, "network-denied", "the egress proxy takes absolute-URI requests only");
    response.writeHead(400, headers).end(body);
    return;
  }
  const destination = await checked(policy, url);
  if ("refused" in destination) {
    const { status, code, message } = destination.refused;
    const { headers, body } = refusalHead(status, code, message);
    response.writeHead(status, headers).end(body);
    return;
  }
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) if (!HOP_HEADERS.has(name) && value !== undefined) headers[name] = value;
  const library = url.protocol === "https:" ? https : http;
  const upstream = library.request(url, { method: request.method, headers, lookup: pinnedLookup(destination) });
  const stop = () => {
    upstream.destroy();
    response.destroy();
  };
  upstream.on("socket", (socket) => {
    const count = bounded([socket, request.socket], stop);
    request.on("data", (chunk: Buffer) => count(chunk.length));
    upstream.on("response", (answer) => answer.on("data", (chunk: Buffer) => count(chunk.length)));
  });
  upstream.on("response", (answer) => {
    const back: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers)) if (!HOP_HEADERS.has(name) && value !== undefined) back[name] = value;
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, back);
    answer.pipe(response);
  });
  upstream.on("error", (error) => {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const { headers: head, body } = refusalHead(502, "connection-failed", `request to ${url.host} failed: ${error.message}`);
    response.writeHead(502, head).end(body);
  });
  request.pipe(upstream);
}

async function tunnel(policy: NetworkPolicy | undefined, request: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
  client.on("error", () => client.destroy());
  let url: URL | null = null;
  try {
    url = new URL(`http://${request.url ?? ""}`);
  } catch {
    // answered below
  }
  const destination = url && url.port ? await checked(policy, url) : { refused: { status: 400, code: "network-denied", message: "CONNECT needs host:port" } };
  if ("refused" in destination) {
    const { status, code, message } = destination.refused;
    const { headers, body } = refusalHead(status, code, message);
    client.end(`HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway"}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n${body}`);
    return;
  }
  const upstream = net.connect({ host: destination.address, port: destination.port, family: destination.family });
  const stop = () => {
    upstream.destroy();
    client.destroy();
  };
  const count = bounded([upstream, client], stop);
  let connected = false;
  upstream.once("connect", () => {
    connected = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) upstream.write(head);
    upstream.on("data", (chunk: Buffer) => count(chunk.length));
    client.on("data", (chunk: Buffer) => count(chunk.length));
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", (error) => {
    if (!connected) {
      const { headers, body } = refusalHead(502, "connection-failed", `connection to ${request.url} failed: ${error.message}`);
      client.end(`HTTP/1.1 502 Bad Gateway\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n${body}`);
    } else client.destroy();
  });
  client.on("close", () => upstream.destroy());
}
