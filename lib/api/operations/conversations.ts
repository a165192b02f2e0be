// Operations of this group are defined here (see lib/api/operations/secrets.ts for the pattern).
export {};
