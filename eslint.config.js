// ESLint's flat config for sparring's page (plain ES modules in the browser, no build step).
// Run by scripts/test.sh: npx eslint src/sparring/service/static
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["src/sparring/service/static/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: globals.browser,
    },
    rules: {
      eqeqeq: "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "no-shadow": "error",
      "consistent-return": "error",
    },
  },
];
