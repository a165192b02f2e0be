import http from "node:http";
import net from "node:net";

export type RawAnswer = {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
  /** Each chunk of the body as it arrived, with the ms since the request was sent (httpRequest only). */
  chunks?: { text: string; at: number }[];
};

function parse(status: number, headers: Record<string, string>, text: string): RawAnswer {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status, headers, text, body };
}

/** A request with any method Node's client sends (TRACE, PROPFIND, CONNECT …), which `fetch` refuses. */
export function httpRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const request = http.request({ host: url.hostname, port: url.port, method, path, headers: { Connection: "close", ...headers } }, (response) => {
      const chunks: { text: string; at: number }[] = [];
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => chunks.push({ text: chunk, at: Date.now() - started }));
      response.on("end", () => resolve({ ...parse(response.statusCode ?? 0, response.headers as Record<string, string>, chunks.map((chunk) => chunk.text).join("")), chunks }));
    });
    // CONNECT: Node's client hands the answer over as a tunnel; read it as a plain response.
    request.on("connect", (response, socket, head) => {
      let text = head.toString("utf8");
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (text += chunk));
      socket.on("end", () => resolve(parse(response.statusCode ?? 0, response.headers as Record<string, string>, text)));
    });
    request.on("error", reject);
    request.end();
  });
}

/** Bytes written to a socket as they are (an odd-cased method, a malformed request line), the answer parsed by hand. */
export function rawSocketRequest(baseUrl: string, bytes: string): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let data = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (data += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head, ...rest] = data.split("\r\n\r\n");
      const [statusLine, ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      resolve(parse(Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, Buffer.from(rest.join("\r\n\r\n"), "latin1").toString("utf8")));
    });
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}
