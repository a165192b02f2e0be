"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { identityKeys } from "@/lib/client/query-keys";
import type { Identity } from "@/lib/client/types";

/** Who the session acts for (GET /v1/identity/whoami): tenant, user and role. */
export function useIdentity() {
  return useQuery({ queryKey: identityKeys.whoami(), queryFn: ({ signal }) => apiFetch<Identity>("/v1/identity/whoami", { signal }), staleTime: 5 * 60_000 });
}
