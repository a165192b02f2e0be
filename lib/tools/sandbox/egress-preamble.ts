/**
 * Code that runs inside a sandbox (lib/tools/sandbox/bwrap.ts), kept as source text and written into the sandbox's
 * egress folder (bound read-only at {@link SANDBOX_EGRESS_DIR}), so that no separate file has to be bundled.
 *
 * - {@link EGRESS_PREAMBLE} (loaded with `--import` before a handler or a Node MCP server): the sandbox has no network
 *   of its own, so it replaces `globalThis.fetch` with one that sends each request, as an absolute-URI HTTP request,
 *   to the egress proxy on its Unix socket, and makes `net.connect` / `net.createConnection` / `tls.connect` to a TCP
 *   host open an HTTP `CONNECT host:port` tunnel on the same socket (the caller sees `connect` only once the proxy
 *   said yes; TLS is wrapped around the established tunnel). A destination the tool's network policy refuses fails
 *   with an error whose `code` is `network-denied` (`host-unresolvable` for a host that does not resolve): fetch
 *   rejects, a socket emits `error`. Redirects are followed here, each one a new request the proxy checks again.
 * - {@link EGRESS_LAUNCHER} (MCP stdio servers): listens on a loopback port inside the sandbox, bridges each
 *   connection to the proxy's socket (it speaks the HTTP proxy protocol), then runs the server's command with
 *   `HTTP_PROXY` / `HTTPS_PROXY` / `ALL_PROXY` naming that port and `NODE_OPTIONS=--import <preamble>`, stdio
 *   inherited, and exits with it.
 */

/** Where a sandbox sees its egress folder: the proxy's socket and the two files below. */
export const SANDBOX_EGRESS_DIR = "/run/kindgi-egress";
export const PROXY_SOCKET = `${SANDBOX_EGRESS_DIR}/proxy.sock`;
export const PREAMBLE_FILE = `${SANDBOX_EGRESS_DIR}/preamble.mjs`;
export const LAUNCHER_FILE = `${SANDBOX_EGRESS_DIR}/launcher.mjs`;

export const EGRESS_PREAMBLE = String.raw`
import egressHttp from "node:http";
import egressNet from "node:net";
import egressTls from "node:tls";
import { syncBuiltinESMExports as egressSyncExports } from "node:module";
import { Duplex as EgressDuplex, Readable as EgressReadable } from "node:stream";

const EGRESS_SOCKET = ${JSON.stringify(PROXY_SOCKET)};
const egressConnect = egressNet.connect;
const egressTlsConnect = egressTls.connect;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function egressError(code, message) {
  return Object.assign(new Error(message), { code });
}

/** The proxy's refusal (a JSON body {code, message}) as an error. */
function refusal(status, text) {
  try {
    const body = JSON.parse(text);
    if (typeof body.code === "string") return egressError(body.code, body.message ?? "the egress proxy refused the request");
  } catch {}
  return egressError("network-denied", "the egress proxy answered " + status);
}

function send(request, body) {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const headers = {};
    request.headers.forEach((value, name) => { headers[name] = value; });
    headers.host = url.host;
    if (body) headers["content-length"] = String(body.length);
    const outgoing = egressHttp.request({ socketPath: EGRESS_SOCKET, method: request.method, path: url.href, headers, signal: request.signal }, (incoming) => {
      if (incoming.headers["x-kindgi-egress"] === "refused") {
        let text = "";
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk) => { text += chunk; });
        incoming.on("end", () => {
          const cause = refusal(incoming.statusCode, text);
          reject(Object.assign(new TypeError("fetch failed: " + cause.message, { cause }), { code: cause.code }));
        });
        return;
      }
      resolve(incoming);
    });
    outgoing.on("error", (error) => reject(new TypeError("fetch failed: " + error.message, { cause: error })));
    outgoing.end(body);
  });
}

globalThis.fetch = async function fetch(input, init) {
  let request = new Request(input, init);
  let body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  for (let hop = 0; ; hop += 1) {
    const incoming = await send(request, body);
    const status = incoming.statusCode;
    const location = incoming.headers.location;
    if (REDIRECTS.has(status) && location && request.redirect !== "manual") {
      incoming.resume();
      if (request.redirect === "error" || hop >= 20) throw new TypeError("fetch failed: redirect " + (hop >= 20 ? "count exceeded" : "refused"));
      const method = status === 303 || ((status === 301 || status === 302) && request.method === "POST") ? "GET" : request.method;
      if (method === "GET" && request.method !== "GET") body = undefined;
      request = new Request(new URL(location, request.url), { method, headers: request.headers, body, redirect: request.redirect, signal: request.signal });
      continue;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
    }
    const empty = status === 204 || status === 304 || status < 200 || request.method === "HEAD";
    if (empty) incoming.resume();
    const response = new Response(empty ? null : EgressReadable.toWeb(incoming), { status, statusText: incoming.statusMessage, headers });
    Object.defineProperty(response, "url", { value: request.url });
    return response;
  }
};

/**
 * Parses the proxy's answer to CONNECT, fed chunk by chunk, then calls done(error, rest): rest is what followed
 * the answer (the destination's first bytes).
 */
function readTunnelAnswer(done) {
  let buffered = Buffer.alloc(0);
  let finished = false;
  const finish = (error, rest) => { if (!finished) { finished = true; done(error, rest); } };
  return {
    data(chunk) {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffered.subarray(0, end).toString("latin1");
      const status = Number(head.split(" ")[1]);
      if (status === 200) return finish(null, buffered.subarray(end + 4));
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      finish(refusal(status, buffered.subarray(end + 4, end + 4 + length).toString("utf8")));
    },
    end() { finish(egressError("network-denied", "the egress proxy closed the tunnel before answering")); },
  };
}

/** Opens a CONNECT tunnel on the proxy's socket; the returned net.Socket emits connect once the tunnel is open. */
function tunnel(host, port, options, listener) {
  const authority = (egressNet.isIPv6(host) ? "[" + host + "]" : host) + ":" + port;
  const socket = egressConnect({ path: EGRESS_SOCKET });
  const emit = socket.emit;
  let resumedHere = false;
  const answer = readTunnelAnswer((error, rest) => {
    socket.emit = emit;
    if (error) { socket.destroy(error); return; }
    if (resumedHere && socket.listenerCount("data") === 0) {
      // Back to how the caller left it: not flowing until it reads.
      socket.pause();
      socket._readableState.flowing = null;
    }
    socket.emit("connect");
    socket.emit("ready");
    if (!rest.length) return;
    const encoding = socket.readableEncoding;
    const chunk = encoding ? rest.toString(encoding) : rest;
    if (socket.readableFlowing) socket.emit("data", chunk);
    else socket.unshift(chunk);
  });
  // Until the proxy answered, the caller sees neither connect nor data: the answer is read here.
  socket.emit = function (event, ...args) {
    if (event === "connect") {
      socket.write("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
      if (!socket.readableFlowing) { resumedHere = true; socket.resume(); }
      // A socket starts reading on its connect event, which is held back: start it now.
      socket._read(0);
      return true;
    }
    if (event === "data") {
      const [chunk] = args;
      answer.data(typeof chunk === "string" ? Buffer.from(chunk, socket.readableEncoding ?? "utf8") : chunk);
      return true;
    }
    if (event === "ready") return true;
    if (event === "end") { answer.end(); return true; }
    return emit.call(this, event, ...args);
  };
  if (listener) socket.once("connect", listener);
  if (options.timeout) socket.setTimeout(options.timeout);
  return socket;
}

/** A Duplex over a tunnel, for TLS to wrap: writes wait until the tunnel is open. */
function tunnelStream(host, port) {
  let raw;
  let open = false;
  const queued = [];
  const stream = new EgressDuplex({
    write(chunk, encoding, callback) { if (open) raw.write(chunk, callback); else queued.push([chunk, callback]); },
    read() { raw?.resume(); },
    final(callback) { raw?.end(); callback(); },
    destroy(error, callback) { raw?.destroy(); callback(error); },
  });
  raw = tunnel(host, port, {}, () => {
    open = true;
    for (const [chunk, callback] of queued.splice(0)) raw.write(chunk, callback);
  });
  raw.on("data", (chunk) => { if (!stream.push(chunk)) raw.pause(); });
  raw.on("end", () => stream.push(null));
  raw.on("error", (error) => stream.destroy(error));
  return stream;
}

function patchedConnect(...args) {
  const [options, listener] = egressNet._normalizeArgs(args);
  if (options.path !== undefined) return egressConnect.apply(egressNet, args);
  return tunnel(options.host ?? "localhost", options.port, options, listener);
}
egressNet.connect = patchedConnect;
egressNet.createConnection = patchedConnect;

egressTls.connect = function (...args) {
  const [normalized, listener] = egressNet._normalizeArgs(args);
  const options = { ...(args.find((arg) => arg && typeof arg === "object") ?? {}), ...normalized };
  if (options.socket || options.path !== undefined) return egressTlsConnect.apply(egressTls, args);
  const host = options.host ?? "localhost";
  const servername = options.servername ?? (egressNet.isIP(host) ? undefined : host);
  return egressTlsConnect.call(egressTls, { ...options, socket: tunnelStream(host, options.port), ...(servername ? { servername } : {}) }, listener);
};
// ES module imports of node:net and node:tls see the replacements too.
egressSyncExports();
`;

export const EGRESS_LAUNCHER = String.raw`
import net from "node:net";
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
const bridge = net.createServer((client) => {
  const upstream = net.connect(${JSON.stringify(PROXY_SOCKET)});
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
bridge.listen(0, "127.0.0.1", () => {
  const proxy = "http://127.0.0.1:" + bridge.address().port;
  const env = { ...process.env, HTTP_PROXY: proxy, HTTPS_PROXY: proxy, ALL_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, all_proxy: proxy, NODE_OPTIONS: "--import " + ${JSON.stringify(PREAMBLE_FILE)} };
  const child = spawn(command, args, { stdio: "inherit", env });
  child.on("error", (error) => { process.stderr.write(String(error.message) + "\n"); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
  for (const name of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(name, () => child.kill(name));
});
`;
