/** What the global setup hands to the specs: the server and the credentials it was started with. */
export type E2eState = {
  baseUrl: string;
  adminEmail: string;
  adminPassword: string;
  bootstrapKey: string;
  defaultProjectId: string;
  backend: "pglite" | "postgresql";
};

export const E2E_STATE_VARIABLE = "KINDGI_E2E_STATE_FILE";
