export function buildIsStale(root: string): boolean;
