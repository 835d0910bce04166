import type { Figure } from "../figure";

/** Every figure `pnpm bench` runs, in order. */
export const figures: Figure[] = [];
