import { defineConfig } from "vite";

// The gateway serves the built page at /playground/ (apps/gateway/src/playground/playgroundPage.ts):
// relative asset paths keep it working under any prefix a proxy adds. `pnpm dev` serves it with hot
// reload and sends the API to a gateway on its default port (or GATEWAY_URL).
const GATEWAY = process.env.GATEWAY_URL ?? "http://127.0.0.1:4001";

export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    reportCompressedSize: false,
    // One chunk of a local tool page: the SDK's messages come with @langchain/core (about 630 kB).
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      onwarn(warning, warn) {
        // The SDK's React hooks are marked for React Server Components, which a browser-only page does not use.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  server: { proxy: Object.fromEntries(["/assistants", "/threads", "/runs"].map((path) => [path, GATEWAY])) },
});
