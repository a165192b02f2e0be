export function dropDatabase(admin: { query(sql: string): Promise<unknown> }, name: string, options?: { attempts?: number; delayMs?: number }): Promise<void>;
