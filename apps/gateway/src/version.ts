// Only the field is bundled, not the whole manifest.
import { version } from "../package.json";

/** This gateway's package version, as published. */
export const GATEWAY_VERSION: string = version;
