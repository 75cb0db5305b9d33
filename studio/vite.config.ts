/** Builds the Studio into studio/dist, served at /admin by the standalone process and the container
 * (container/studio.ts) and uploaded to the bucket behind CloudFront in the cloud deployment. Hashed assets only
 * and no inline script, so /admin can send a strict Content-Security-Policy. */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // The preload helper is a module, not an inline script; it keeps lazy routes to one round trip.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rolldownOptions: {
      // React Query marks modules "use client" for server-component bundlers; meaningless in a browser-only build.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  // `ws`: /websocket (realtime) is proxied as a WebSocket.
  server: { proxy: { '^/(?!admin)': { target: 'http://127.0.0.1:8055', ws: true } } },
});
