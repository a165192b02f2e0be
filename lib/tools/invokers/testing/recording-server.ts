/**
 * A local HTTP server for invoker tests: listens on 127.0.0.1 at a random port, records every request, and answers
 * with a handler (by default 200 with the recorded request as JSON).
 */
import http, { type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the server received. */
export type RecordedRequest = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

/** Answers one request; may be async (to sleep, for instance). Its return value is ignored. */
export type RecordingHandler = (request: RecordedRequest, response: ServerResponse) => unknown;

/** A running recording server. */
export type RecordingServer = {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>`, as an allowlist entry. */
  hostPort: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

/** Sends `value` as JSON with `status`. */
export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}

/** Starts a server on 127.0.0.1 with a random port. */
export async function startRecordingServer(handler: RecordingHandler = (request, response) => sendJson(response, 200, request)): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const request = { method: incoming.method ?? "", url: incoming.url ?? "", headers: incoming.headers, body: Buffer.concat(chunks).toString("utf8") };
    requests.push(request);
    await handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
