import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", ".cache/", "data/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    files: ["src/**/*.ts"],
    rules: { "no-console": "error" },
  },
  {
    // Money paths: a promise nobody awaits must say so (`void`), and none may go where a callback's result is ignored.
    files: ["src/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
  {
    // CLI entry points and dev tools talk to a terminal on purpose.
    files: ["src/cli/**/*.ts", "src/dev/**/*.ts", "scripts/**/*.ts", "examples/**/*.ts", "bench/**/*.ts"],
    rules: { "no-console": "off" },
  },
  {
    // The soak, load test and report print their figures.
    files: ["reliability/**/*.ts"],
    rules: { "no-console": "off" },
  },
);
