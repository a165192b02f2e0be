"use client";
import { Select, Skeleton } from "@/components/ui";
import { useProjectState } from "@/lib/client/current-project";

/** Chooses the project every page shows (the person's projects from GET /v1/projects). */
export function ProjectSwitcher() {
  const state = useProjectState();
  return (
    <div className="flex items-center gap-2">
      <label htmlFor="project-switcher" className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
        Project
      </label>
      {state.status === "ready" ? (
        <Select id="project-switcher" className="w-52" value={state.projectId} onChange={(event) => state.setProjectId(event.target.value)}>
          {state.projects.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
              {project.isDefault ? " (default)" : ""}
            </option>
          ))}
        </Select>
      ) : state.status === "loading" ? (
        <Skeleton className="h-9 w-52" />
      ) : (
        <Select id="project-switcher" className="w-52" disabled aria-invalid>
          <option>Projects could not be loaded</option>
        </Select>
      )}
    </div>
  );
}
