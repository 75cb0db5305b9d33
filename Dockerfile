# One image for both halves and the standalone mode: SVC_MODE=container | functions | standalone (default).
# It runs the compiled JavaScript (`npm run build` -> dist/), not the TypeScript sources.
#
# Stages:
#   build  all dependencies (typescript and vite are dev dependencies), `tsc -p tsconfig.build.json` -> dist/,
#          the Studio -> studio/dist (served at /admin)
#   deps   production dependencies only; `npm ci` on linux installs sharp's and @node-rs/argon2's prebuilt
#          linux binaries for the build platform (@img/sharp-linux-x64 | -arm64 with libvips, glibc: node:*-slim)
#   run    dist/ + production node_modules, non-root user `node`
# For the ECS service (arm64 Fargate would need `docker buildx --platform linux/arm64`) SST builds this file.

ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY core ./core
COPY functions ./functions
COPY container ./container
COPY migrations ./migrations
COPY scripts/build-studio.mjs ./scripts/build-studio.mjs
COPY studio ./studio
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force \
 # Fails the build here, not at the first transform, when sharp's binary for this platform is missing.
 && node -e "require('sharp')" \
 && node -e "require('@node-rs/argon2')"

FROM ${NODE_IMAGE} AS run
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8055 \
    DATA_DIR=/app/data \
    STORAGE_LOCAL_ROOT=/app/uploads \
    EXTENSIONS_PATH=/app/extensions
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/studio/dist ./studio/dist
COPY --chown=root:root package.json ./
# The operator CLI: `docker exec <container> node bin/svc.mjs doctor` (docs/cli.md).
COPY --chown=root:root bin ./bin
# Code and dependencies stay owned by root (read-only for the service); only the data folders are writable.
RUN mkdir -p /app/data /app/uploads /app/extensions && chown node:node /app/data /app/uploads /app/extensions

USER node
EXPOSE 8055
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8055)+'/server/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

CMD ["node", "--max-semi-space-size=2", "dist/container/main.js"]
