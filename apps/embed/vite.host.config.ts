import { defineConfig } from "vite";

// /embed.js: one classic script a host page loads from the gateway with <script src>, defining
// `AxiomEmbed`. A classic script (not a module) loads across origins without CORS.
export default defineConfig({
  build: {
    outDir: "dist/host",
    emptyOutDir: true,
    reportCompressedSize: false,
    lib: { entry: "src/host.ts", name: "AxiomEmbed", formats: ["iife"], fileName: () => "embed.js" },
  },
});
