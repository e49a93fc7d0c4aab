import { defineConfig } from "vite";

// `npm run dev` proxies the API to a web server on :8080 (python -m griot.services.web); `npm run build`
// writes dist/, which python -m griot.services.web serves at /.
export default defineConfig({
  base: "./",
  resolve: { dedupe: ["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web"] },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1000 },
  server: {
    proxy: { "/api": { target: process.env.GRIOT_WEB_URL ?? "http://127.0.0.1:8080", changeOrigin: true } },
  },
});
