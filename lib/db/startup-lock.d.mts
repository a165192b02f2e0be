export declare const STARTUP_LOCK_KEY: string;
export declare function takeStartupLock(url: string, options?: { onWait?: () => void }): Promise<() => Promise<void>>;
export declare function withStartupLock<T>(url: string, fn: () => Promise<T>, options?: { onWait?: () => void }): Promise<T>;
