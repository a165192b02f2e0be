// PGlite has no lock of its own and two processes writing one data folder silently lose data.
// The folder's owner keeps `<dataDir>.lock` naming its processes; another process is refused while any of
// them lives. `npm start` takes the lock and hands a token to the processes it starts (migrations, Next).
import fs from "node:fs";
import path from "node:path";

export class DataDirInUseError extends Error {
  constructor(dataDir, holder) {
    super(
      `The data folder ${dataDir} is in use by another Kindgi process (pid ${holder.pids.join(", ")}, since ${holder.startedAt}). ` +
        `Only one process may open an embedded database: stop the other one, or set KINDGI_DATA_DIR to another folder ` +
        `(or DATABASE_URL to use PostgreSQL, which any number of processes may share).`,
    );
    this.name = "DataDirInUseError";
  }
}

/** A killed process that nobody reaped yet (a zombie, Linux `/proc`) holds nothing any more. */
function isZombie(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch (error) {
    return error.code === "EPERM";
  }
}

function readLock(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

/**
 * Takes the data folder's lock for this process, or throws DataDirInUseError.
 * A lock whose processes are all gone (a crash, a SIGKILL) is taken over.
 * @param {string} dataDir
 * @param {{ token?: string }} [options] a token handed down by the process that holds the lock
 */
export function acquireDataDirLock(dataDir, { token } = {}) {
  const file = path.resolve(dataDir) + ".lock";
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = readLock(file);
    if (current) {
      const alive = (current.pids ?? []).filter((pid) => pid !== process.pid && isAlive(pid));
      if (alive.length > 0 && !(token && current.token === token)) throw new DataDirInUseError(path.resolve(dataDir), { ...current, pids: alive });
      const next = { token: alive.length > 0 ? current.token : token ?? current.token, pids: [...alive, process.pid], startedAt: alive.length > 0 ? current.startedAt : new Date().toISOString() };
      const temp = `${file}.${process.pid}`;
      fs.writeFileSync(temp, JSON.stringify(next));
      fs.renameSync(temp, file);
      if (readLock(file)?.pids?.includes(process.pid)) return registerRelease(file);
      continue;
    }
    try {
      fs.writeFileSync(file, JSON.stringify({ token: token ?? null, pids: [process.pid], startedAt: new Date().toISOString() }), { flag: "wx" });
      return registerRelease(file);
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}

const released = new Set();
function registerRelease(file) {
  const release = () => {
    if (released.has(file)) return;
    released.add(file);
    const current = readLock(file);
    if (!current) return;
    const pids = (current.pids ?? []).filter((pid) => pid !== process.pid);
    try {
      if (pids.length === 0) fs.unlinkSync(file);
      else fs.writeFileSync(file, JSON.stringify({ ...current, pids }));
    } catch {
      // the lock is advisory; a leftover file is taken over by the next owner
    }
  };
  released.delete(file);
  process.once("exit", release);
  return release;
}
