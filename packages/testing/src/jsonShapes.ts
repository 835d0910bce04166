// The bounds every store puts on free-form JSON (MAX_JSON_DEPTH, MAX_JSON_BYTES in @axiom-lattice/core),
// stated here on their own: the contracts hold the stores to these numbers.
export const JSON_DEPTH_BOUND = 32;
export const JSON_BYTES_BOUND = 64 * 1024;

/** `levels` objects, each inside the previous one (`nestedObject(2)` is `{ a: {} }`). */
export function nestedObject(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < levels; level += 1) value = { a: value };
  return value;
}

/** An object whose JSON text is exactly `bytes` bytes long (at least 11). */
export const objectOfJsonBytes = (bytes: number): Record<string, string> => ({ blob: "x".repeat(bytes - '{"blob":""}'.length) });
