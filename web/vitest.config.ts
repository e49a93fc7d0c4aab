import { defineConfig } from "vitest/config";

// One vitest run for the workspace: the client's and the demo board's logic (no browser needed).
export default defineConfig({
  test: {
    include: ["client/test/**/*.test.ts", "app/test/**/*.test.ts"],
    environment: "node",
  },
});
