# One image for every service; the command picks the service:
#   bun gateway/src/main.ts | bun services/<name>/src/main.ts
# npm installs exactly what package-lock.json says, nested node_modules included (the webhooks
# service's ipaddr.js 2.x sits in services/webhooks/node_modules), and no devDependencies.
FROM node:22-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY shared/package.json shared/
COPY gateway/package.json gateway/
COPY services/public-read/package.json services/public-read/
COPY services/forms/package.json services/forms/
COPY services/client-api/package.json services/client-api/
COPY services/webhooks/package.json services/webhooks/
COPY services/workspace/package.json services/workspace/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
# The fixes the project carries for its dependencies (patches/, applied by npm's postinstall on a
# developer's machine); patch-package is a dependency so that it is here without the dev tools.
COPY patches patches
RUN npx patch-package

# The SES v2 emulator for compose.yaml: a devDependency, so it gets the full install.
FROM deps AS ses-emulator
RUN npm ci --ignore-scripts --no-audit --no-fund
EXPOSE 8005

# The services' image (the default target: the last stage).

FROM oven/bun:1-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 METRICS_PORT=9090 BUN_RUNTIME_TRANSPILER_CACHE_PATH=0
# The whole install: the root node_modules and every workspace's own.
COPY --from=deps --chown=bun:bun /app ./
COPY --chown=bun:bun package.json tsconfig.json ./
COPY --chown=bun:bun shared shared
COPY --chown=bun:bun gateway gateway
COPY --chown=bun:bun services services
USER bun
EXPOSE 3000 9090
CMD ["bun", "gateway/src/main.ts"]
