import { randomUUID } from "node:crypto";
import type { CreateThreadRequest } from "@axiom-lattice/protocols";
import { optionalText, requireBoundedJson, requireInteger, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every ThreadStore, so bad input is refused alike and before any write.

export interface ValidThread {
  id: string;
  assistantId: string;
  /** JSON text of the metadata object. */
  metadata: string;
}

export interface ValidThreadFilter {
  assistantId?: string;
  limit: number;
  offset: number;
}

/** A metadata object, within the bounds of free-form JSON, as JSON text. */
export function validateMetadata(metadata: unknown): string {
  return requireBoundedJson(requireObject(metadata, "Thread metadata"), "Thread metadata");
}

export function validateCreateThread(request: CreateThreadRequest): ValidThread {
  const checked = requireObject(request, "Thread");
  return {
    id: checked.id === undefined ? randomUUID() : requireText(checked.id, "Thread id"),
    assistantId: requireText(checked.assistantId, "Thread assistantId"),
    metadata: validateMetadata(checked.metadata ?? {}),
  };
}

export function validateThreadFilter(filter: unknown): ValidThreadFilter {
  const checked = filter === undefined ? {} : requireObject(filter, "Thread filter");
  return {
    assistantId: optionalText(checked.assistantId, "Thread filter assistantId"),
    limit: checked.limit === undefined ? 100 : requireInteger(checked.limit, "Thread filter limit", 1, 1000),
    offset: checked.offset === undefined ? 0 : requireInteger(checked.offset, "Thread filter offset", 0),
  };
}
