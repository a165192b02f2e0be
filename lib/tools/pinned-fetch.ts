/**
 * A WHATWG `fetch` whose every request goes to the address a policy check approved for that request: `check`
 * resolves and checks the URL and returns the destination, and the connection is made to that address only
 * ({@link pinnedLookup}), so a second DNS answer cannot move it elsewhere (DNS rebinding). The global `fetch` resolves
 * the host again itself, which is why this one is built on `node:http`/`node:https`.
 *
 * As with `fetch`, bodies stream in both directions (an MCP server's event stream stays open). A redirect is handed
 * back as it is when the request asks for `redirect: "manual"` (the caller's next request is checked again), and is
 * refused otherwise. Connections are kept alive per checked address (an {@link AgentPool}), until the pool is closed.
 */
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { pinnedLookup, type Destination } from "./network-policy";

export type DestinationCheck = (url: URL) => Promise<Destination>;

export type PinnedFetch = {
  fetch: typeof fetch;
  /** Ends the kept-alive connections (an open response stream is cut). */
  close(): void;
};

const NO_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * Keep-alive agents, one per checked address (each connects to its address only); past `max`, the least recently used
 * is retired (see `retire`): nothing in flight on it is cut.
 */
export class AgentPool {
  private readonly agents = new Map<string, http.Agent>();
  constructor(private readonly max = 32) {}

  agentFor(url: URL, destination: Destination): http.Agent {
    const key = `${url.protocol}//${destination.hostname}:${destination.port}@${destination.address}`;
    let agent = this.agents.get(key);
    if (agent) this.agents.delete(key);
    else {
      const options = { keepAlive: true, lookup: pinnedLookup(destination) };
      agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
    }
    this.agents.set(key, agent);
    if (this.agents.size > this.max) {
      const [oldest, evicted] = this.agents.entries().next().value as [string, http.Agent];
      this.agents.delete(oldest);
      retire(evicted);
    }
    return agent;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/**
 * An agent left out of the pool: its idle connections close now, and a request still in flight on it (a model's answer
 * being streamed, an MCP event stream) finishes, after which its connection closes instead of waiting for reuse.
 */
function retire(agent: http.Agent): void {
  // A connection released while no free one may be kept is closed (Node's agent, on "free").
  agent.maxFreeSockets = 0;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/** `pool`: agents shared with other fetches (closing this one then closes them too). */
export function pinnedFetch(check: DestinationCheck, pool = new AgentPool()): PinnedFetch {
  const pinned = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // The Request constructor merges `input` and `init` as fetch does (headers, method, body, signal).
    const request = new Request(input, init);
    const url = new URL(request.url);
    const destination = await check(url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const signal = request.signal;
    signal.throwIfAborted();
    const headers: Record<string, string> = Object.fromEntries(request.headers);
    if (body) headers["content-length"] = String(body.byteLength);
    const library = url.protocol === "https:" ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = library.request(url, { method: request.method, headers, agent: pool.agentFor(url, destination), signal }, (incoming) => {
        const status = incoming.statusCode ?? 0;
        if (status >= 300 && status < 400 && incoming.headers.location && request.redirect !== "manual") {
          incoming.resume();
          return reject(new TypeError(`fetch failed: ${url.host} answered ${status} (a redirect), and this request does not follow redirects`));
        }
        if (status < 200 || status > 599) {
          incoming.resume();
          return reject(new TypeError(`fetch failed: ${url.host} answered with status ${status}`));
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, one);
        const empty = request.method === "HEAD" || NO_BODY_STATUSES.has(status);
        if (empty) incoming.resume();
        resolve(new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), { status, statusText: incoming.statusMessage, headers: responseHeaders }));
      });
      outgoing.on("error", (error) => reject(signal.aborted ? signal.reason : new TypeError("fetch failed", { cause: error })));
      outgoing.end(body);
    });
  };

  return { fetch: pinned as typeof fetch, close: () => pool.close() };
}
