export function runMigrations(options: {
  command: "deploy" | "dev";
  name?: string;
  databaseUrl?: string;
  dataDir?: string;
  log?: (line: string) => void;
}): Promise<string[]>;
