// The shapes outbox payload parsers recognise: payloads arrive from peers as JSON, so each field is checked.

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
export const isId = (value: unknown): value is string => typeof value === "string" && value.length > 0;
export const isOptionalString = (value: unknown): value is string | undefined => value === undefined || typeof value === "string";
