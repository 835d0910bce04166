import { randomUUID } from "node:crypto";
import type { CreateProjectRequest, UpdateProjectRequest } from "@axiom-lattice/protocols";
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

// Checks shared by every ProjectStore, so bad input is refused alike and before any write. Only known
// keys are kept, so a store never persists stray input.

export interface ValidProject {
  id: string;
  name: string;
  description?: string;
  metadata?: Record<string, unknown>;
}

export type ValidProjectUpdate = Partial<Omit<ValidProject, "id">>;

const fields = {
  name: rules.text,
  description: rules.string.optional(),
  metadata: rules.storedJsonObject.optional(),
};
const createSchema = z.object({ id: rules.text.default(() => randomUUID()), ...fields }, { error: "must be an object" });
const updateSchema = z.object(fields, { error: "must be an object" }).partial();

export const validateCreateProject = (request: CreateProjectRequest): ValidProject => definedFields(parseStoreArgument(createSchema, request, "Project"));

export const validateUpdateProject = (request: UpdateProjectRequest): ValidProjectUpdate => definedFields(parseStoreArgument(updateSchema, request, "Project update"));

export const requireProjectId = (projectId: unknown): string => parseStoreArgument(rules.text, projectId, "Project id");
export const requireAssistantId = (assistantId: unknown): string => parseStoreArgument(rules.text, assistantId, "Assistant id");
