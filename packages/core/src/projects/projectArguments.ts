import { randomUUID } from "node:crypto";
import type { CreateProjectRequest, UpdateProjectRequest } from "@axiom-lattice/protocols";
import { optionalString, requireBoundedJson, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every ProjectStore, so bad input is refused alike and before any write. Only known
// keys are kept, so a store never persists stray input.

export interface ValidProject {
  id: string;
  name: string;
  description?: string;
  metadata?: Record<string, unknown>;
}

export type ValidProjectUpdate = Partial<Omit<ValidProject, "id">>;

function validateMetadata(metadata: unknown): Record<string, unknown> {
  const checked = requireObject(metadata, "Project metadata");
  // A round trip through JSON, so the in-memory store keeps exactly what jsonb would.
  return JSON.parse(requireBoundedJson(checked, "Project metadata")) as Record<string, unknown>;
}

export function validateCreateProject(request: CreateProjectRequest): ValidProject {
  const checked = requireObject(request, "Project");
  const description = optionalString(checked.description, "Project description");
  return {
    id: checked.id === undefined ? randomUUID() : requireText(checked.id, "Project id"),
    name: requireText(checked.name, "Project name"),
    ...(description === undefined ? {} : { description }),
    ...(checked.metadata === undefined ? {} : { metadata: validateMetadata(checked.metadata) }),
  };
}

export function validateUpdateProject(request: UpdateProjectRequest): ValidProjectUpdate {
  const checked = requireObject(request, "Project update");
  const update: ValidProjectUpdate = {};
  if (checked.name !== undefined) update.name = requireText(checked.name, "Project name");
  if (checked.description !== undefined) update.description = optionalString(checked.description, "Project description");
  if (checked.metadata !== undefined) update.metadata = validateMetadata(checked.metadata);
  return update;
}

export const requireProjectId = (projectId: unknown): string => requireText(projectId, "Project id");
export const requireAssistantId = (assistantId: unknown): string => requireText(assistantId, "Assistant id");
