/**
 * Server-sent events read from a byte stream, as the HTML standard's event-stream parser reads them: bytes decoded
 * as UTF-8 across chunk boundaries (a character cut between two chunks is joined), lines ended by CRLF, LF or CR
 * (a CR at the end of a chunk waits for the next one, which may start with its LF), `:` comment lines skipped,
 * the `data` lines of one event joined with "\n", an event dispatched at the blank line that ends it. The stream's
 * end dispatches nothing: an event it ends inside of was cut, and is dropped.
 */

/** One event: its `event:` name (absent when the stream names none) and its data. */
export type ServerSentEvent = { event?: string; data: string };

/** Turns the chunks of an event stream, cut anywhere, into its events. */
export class ServerSentEventDecoder {
  private readonly decoder = new TextDecoder("utf-8");
  private buffer = "";
  /** Where the search for the next line end resumes: the buffer before it holds none. */
  private scanned = 0;
  private dataLines: string[] = [];
  private eventName: string | undefined;

  /** The events these bytes complete. */
  push(bytes: Uint8Array): ServerSentEvent[] {
    return this.read(this.decoder.decode(bytes, { stream: true }), false);
  }

  /** The events the end of the stream completes (a last line ended by a lone CR); an unfinished event is dropped. */
  end(): ServerSentEvent[] {
    return this.read(this.decoder.decode(), true);
  }

  private read(text: string, isEnd: boolean): ServerSentEvent[] {
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (let i = this.scanned; i < this.buffer.length; i++) {
      const char = this.buffer.charCodeAt(i);
      if (char !== LF && char !== CR) continue;
      if (char === CR && i + 1 === this.buffer.length && !isEnd) break; // its LF may come with the next chunk
      const line = this.buffer.slice(start, i);
      if (char === CR && this.buffer.charCodeAt(i + 1) === LF) i++;
      start = i + 1;
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    this.scanned = this.buffer.length > 0 && this.buffer.charCodeAt(this.buffer.length - 1) === CR ? this.buffer.length - 1 : this.buffer.length;
    if (isEnd) {
      this.buffer = "";
      this.scanned = 0;
      this.dataLines = [];
      this.eventName = undefined;
    }
    return events;
  }

  /** Reads one line; returns the event a blank line completes. */
  private line(line: string): ServerSentEvent | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.dataLines.push(value);
    else if (field === "event") this.eventName = value;
    // `id` and `retry` steer reconnection, which a model call does not do; other fields are ignored, as specified.
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const { dataLines, eventName } = this;
    this.dataLines = [];
    this.eventName = undefined;
    if (dataLines.length === 0) return undefined;
    return { ...(eventName !== undefined && eventName !== "" && { event: eventName }), data: dataLines.join("\n") };
  }
}

const LF = 0x0a;
const CR = 0x0d;
