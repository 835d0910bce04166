// One flat config for the whole workspace; each package's `lint` script runs eslint on its own folders,
// then `madge --circular` on them: an import cycle inside a package fails the lint step.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/test-results/**", "**/.turbo/**"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    // Everything here runs on Node.js, including plain .mjs/.cjs scripts and test fixtures.
    languageOptions: { globals: globals.node },
    rules: {
      // A leading underscore marks a name kept on purpose (an override's parameter, a skipped
      // element), the same convention tsconfig's noUnusedParameters accepts.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
      // A `let` that a closure reads before its single assignment cannot be a `const`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // Interfaces are named for what they are (`MessageQueueStore`), never `I`-prefixed (`IMessageQueueStore`).
      "@typescript-eslint/naming-convention": [
        "error",
        { selector: "interface", format: null, custom: { regex: "^I[A-Z]", match: false } },
      ],
    },
  },
  // The gateway's two HTTP dialects, the LangGraph API (langgraph/) and /api (routes/), import
  // nothing from each other: what both use lives in shared/, which imports neither.
  ...[
    { folder: "langgraph", forbidden: ["routes"] },
    { folder: "routes", forbidden: ["langgraph"] },
    { folder: "shared", forbidden: ["langgraph", "routes"] },
    { folder: "mcpServer", forbidden: ["langgraph", "routes"] },
  ].map(({ folder, forbidden }) => ({
    files: [`apps/gateway/src/${folder}/**/*.ts`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: forbidden.map((other) => ({
            regex: `^(\\.\\./)+${other}(/|$)`,
            message: `${folder}/ imports nothing from ${other}/: what both dialects use lives in apps/gateway/src/shared/, which imports neither.`,
          })),
        },
      ],
    },
  })),
);
