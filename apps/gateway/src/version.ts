import manifest from "../package.json";

/** The gateway's package version, inlined at build time (`--version`, the startup line). */
export const GATEWAY_VERSION: string = manifest.version;
