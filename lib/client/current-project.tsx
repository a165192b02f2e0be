"use client";
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { useProjects } from "@/lib/client/use-projects";
import type { Project } from "@/lib/client/types";

export type { Project } from "@/lib/client/types";

/** Where the chosen project is remembered in the browser; `?project=<id>` in a console URL chooses it too. */
export const PROJECT_STORAGE_KEY = "kindgi.projectId";

export type CurrentProject = { projectId: string; projects: Project[]; setProjectId(id: string): void };

type ProjectState =
  | { status: "loading" }
  | { status: "error"; error: unknown; retry: () => void }
  | ({ status: "ready" } & CurrentProject);

const ProjectStateContext = createContext<ProjectState | null>(null);

/**
 * The project switcher's state: the person's projects (every page of GET /v1/projects) and the chosen one (the one
 * remembered in this browser if it still exists, else the tenant's default project).
 */
export function CurrentProjectProvider({ children }: { children: ReactNode }) {
  const projects = useProjects();
  const [chosen, setChosen] = useState<string | null>(null);
  const [restored, setRestored] = useState(false);

  useEffect(() => {
    const fromUrl = new URLSearchParams(window.location.search).get("project");
    let stored: string | null = null;
    try {
      stored = window.localStorage.getItem(PROJECT_STORAGE_KEY);
    } catch {
      // storage can be unavailable; the default project is used then
    }
    setChosen(fromUrl ?? stored);
    setRestored(true);
  }, []);

  const setProjectId = useCallback((id: string) => {
    setChosen(id);
    try {
      window.localStorage.setItem(PROJECT_STORAGE_KEY, id);
    } catch {
      // see above
    }
  }, []);

  const { data: list, isError, error, refetch } = projects;
  const state = useMemo<ProjectState>(() => {
    if (isError) return { status: "error", error, retry: () => void refetch() };
    if (!list || !restored) return { status: "loading" };
    if (list.length === 0) return { status: "error", error: new Error("you have no project: ask a tenant admin to create one"), retry: () => void refetch() };
    const projectId = chosen && list.some((project) => project.id === chosen) ? chosen : (list.find((project) => project.isDefault) ?? list[0]).id;
    return { status: "ready", projectId, projects: list, setProjectId };
  }, [isError, error, refetch, list, restored, chosen, setProjectId]);

  return <ProjectStateContext.Provider value={state}>{children}</ProjectStateContext.Provider>;
}

/** The switcher's view of the state, including loading and error (for the top bar). */
export function useProjectState(): ProjectState {
  const state = useContext(ProjectStateContext);
  if (!state) throw new Error("useProjectState is used outside CurrentProjectProvider");
  return state;
}

/**
 * Renders `children` only once the current project is known, so that inside them `useCurrentProject().projectId`
 * is always a real id; `fallback` until then, `renderError` when the projects cannot be loaded.
 */
export function RequireProject({ children, fallback, renderError }: { children: ReactNode; fallback: ReactNode; renderError: (error: unknown, retry: () => void) => ReactNode }) {
  const state = useProjectState();
  if (state.status === "error") return <>{renderError(state.error, state.retry)}</>;
  if (state.status === "loading") return <>{fallback}</>;
  return <>{children}</>;
}

/** The project the console shows; every project-scoped query uses `projectId`. Use inside the console layout's pages. */
export function useCurrentProject(): CurrentProject {
  const state = useProjectState();
  if (state.status !== "ready") throw new Error("useCurrentProject is used before the current project is known (outside RequireProject)");
  return { projectId: state.projectId, projects: state.projects, setProjectId: state.setProjectId };
}
