// One flat config for the whole workspace; each package's `lint` script runs eslint on its own folders.
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
    },
  },
);
