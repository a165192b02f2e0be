/** Shapes of /v1 responses the console reads (the OpenAPI document at /v1/openapi.json is the reference). */

export type Project = { id: string; name: string; isDefault: boolean; createdAt: string };

export type Identity = {
  tenant: { id: string; name: string; defaultProjectId: string | null };
  user: { id: string; kind: string; name: string; email: string | null; role: string; reviewerLevel: string | null };
  apiKey: { id: string; prefix: string; projectId: string | null } | null;
};
