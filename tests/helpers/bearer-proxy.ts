import http from "node:http";
import type { AddressInfo } from "node:net";

export type BearerProxy = { origin: string; close: () => Promise<void> };

/**
 * A forwarding proxy on 127.0.0.1 and a free port for a client that sends no credentials (the MCP conformance suite):
 * every request goes to `target` (an origin) with `Authorization: Bearer <key>` added and everything else unchanged —
 * the method, the path and query, the body and every header, `Host` and `Origin` as received (the suite's DNS
 * rebinding scenario sends foreign ones) — and its answer comes back as it is produced, chunk by chunk (SSE).
 */
export async function startBearerProxy(target: string, key: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const headers = { ...request.headers, authorization: `Bearer ${key}` };
    // `headers.host` is passed on as received: with a Host header given, node:http sends that one.
    const forwarded = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      response.flushHeaders();
      answer.on("data", (chunk: Buffer) => response.write(chunk));
      answer.on("end", () => response.end());
      answer.on("error", () => response.destroy());
    });
    forwarded.on("error", (error) => {
      if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
      response.end(`proxy: ${error.message}`);
    });
    // A client that goes away (the suite cancels SSE readers) ends the upstream request too.
    response.on("close", () => forwarded.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
