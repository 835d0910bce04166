import { defineConfig } from "vite";

// The chat page the gateway serves at /embed/{id} (apps/gateway/src/webApps/embedPage.ts): relative
// asset paths resolve under /embed/. The host script is built on its own (vite.host.config.ts).
export default defineConfig({
  base: "./",
  build: { outDir: "dist/page", emptyOutDir: true, reportCompressedSize: false },
});
