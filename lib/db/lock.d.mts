export class DataDirInUseError extends Error {}
export function acquireDataDirLock(dataDir: string, options?: { token?: string }): () => void;
