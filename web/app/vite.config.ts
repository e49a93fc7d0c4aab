import { defineConfig } from "vite";

// `npm run dev` proxies the API to a web server on :8080 (python -m griot.services.web). `npm run build`
// writes the board into the Python package (python/griot/board), so that the wheel and the sdist
// carry it and python -m griot.services.web serves it at / without Node.js on the user's machine.
export default defineConfig({
  base: "./",
  resolve: { dedupe: ["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web"] },
  build: { outDir: "../../python/griot/board", emptyOutDir: true, chunkSizeWarningLimit: 1000 },
  server: {
    proxy: { "/api": { target: process.env.GRIOT_WEB_URL ?? "http://127.0.0.1:8080", changeOrigin: true } },
  },
});
