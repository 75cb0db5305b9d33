# One image for both halves: SVC_MODE=functions | container | standalone (default).
# tsx runs the TypeScript sources at runtime; it is a production dependency, so dev dependencies
# (vitest, typescript, sst, autocannon) stay out of the image.
FROM node:20-slim

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8055 \
    DATA_DIR=/app/data \
    STORAGE_LOCAL_ROOT=/app/uploads \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false

WORKDIR /app

COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY --chown=node:node . .
RUN mkdir -p /app/data /app/uploads /app/extensions && chown -R node:node /app/data /app/uploads /app/extensions

USER node
EXPOSE 8055
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8055)+'/server/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"

CMD ["npm", "start"]
