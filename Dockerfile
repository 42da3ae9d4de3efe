# One image for every service; the command picks the service:
#   bun gateway/src/main.ts | bun services/<name>/src/main.ts
FROM oven/bun:1 AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY shared/package.json shared/
COPY gateway/package.json gateway/
COPY services/public-read/package.json services/public-read/
COPY services/forms/package.json services/forms/
COPY services/client-api/package.json services/client-api/
COPY services/webhooks/package.json services/webhooks/
COPY services/workspace/package.json services/workspace/
RUN bun install --production --ignore-scripts

FROM oven/bun:1-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 METRICS_PORT=9090 BUN_RUNTIME_TRANSPILER_CACHE_PATH=0
COPY --from=deps --chown=bun:bun /app/node_modules ./node_modules
COPY --chown=bun:bun package.json tsconfig.json ./
COPY --chown=bun:bun shared shared
COPY --chown=bun:bun gateway gateway
COPY --chown=bun:bun services services
USER bun
EXPOSE 3000 9090
CMD ["bun", "gateway/src/main.ts"]
