/**
 * A background loop of the server process (the scheduler, the notification dispatcher): one pass at a time, the
 * next after the sleep the pass asks for, and at once when woken during or between passes (work queued in this
 * process). A failing pass is logged and the loop goes on.
 */
import { log } from "@/lib/log";

export type BackgroundLoop = { wake: () => void };

/** Starts the loop. `pass` answers how long to sleep before the next pass (null: `defaultSleepMs`). */
export function startBackgroundLoop(name: string, defaultSleepMs: number, pass: () => Promise<number | null | void>): BackgroundLoop {
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    if (timer) clearTimeout(timer);
    let sleepMs = defaultSleepMs;
    try {
      sleepMs = (await pass()) ?? defaultSleepMs;
    } catch (error) {
      log.error(`the ${name} pass failed`, { loop: name, err: error });
    } finally {
      running = false;
      timer = setTimeout(() => void run(), again ? 0 : sleepMs);
      again = false;
      timer.unref();
    }
  };
  void run();
  return { wake: () => void run() };
}
