import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

// `npm run build:web` → web/dist, served by `slipway server`. `vite --config web/vite.config.ts`
// serves the UI in development, proxying /api to a `slipway server` on port 8080.
export default defineConfig({
  root,
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true },
  server: { proxy: { "/api": "http://127.0.0.1:8080" } },
});
