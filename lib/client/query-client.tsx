"use client";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { isApiError } from "@/lib/client/api";

let signingOut = false;

/** The person asked to sign out: a 401 from now on is that, not an ended session to come back from. */
export function markSigningOut(): void {
  signingOut = true;
}

/** A 401 from /v1 means the session ended: go to sign-in and come back here afterwards. */
function onUnauthenticated(error: unknown) {
  if (signingOut || !isApiError(error) || error.status !== 401 || typeof window === "undefined") return;
  const here = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/sign-in?callbackUrl=${encodeURIComponent(here)}`);
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onUnauthenticated }),
    mutationCache: new MutationCache({ onError: onUnauthenticated }),
    defaultOptions: {
      queries: {
        staleTime: 15_000,
        refetchOnWindowFocus: false,
        // Client errors (4xx) are answers, not hiccups: no retry for them.
        retry: (failureCount, error) => (isApiError(error) && error.status >= 400 && error.status < 500 ? false : failureCount < 2),
      },
    },
  });
}

/** TanStack Query for the console, one client per browser tab. */
export function QueryProvider({ children }: { children: ReactNode }) {
  const [client] = useState(makeQueryClient);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
