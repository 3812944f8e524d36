# syntax=docker/dockerfile:1
# One image runs `slipway operator` (the default) or `slipway server` (args: ["server"]).
# TypeScript runs as is on Node 24 (type stripping): there is no compile step, only the web UI build.

ARG NODE_VERSION=24

# The web UI (web/dist), built with the dev dependencies.
FROM node:${NODE_VERSION}-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY web ./web
COPY src ./src
RUN npm run build:web

# Production dependencies only.
FROM node:${NODE_VERSION}-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts

# Runtime: distroless Node 24, no shell, non-root (uid/gid 65532, as the bundle's Deployment runs it).
FROM gcr.io/distroless/nodejs${NODE_VERSION}-debian12:nonroot
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY tools/kube/versions.env ./tools/kube/versions.env
COPY deploy ./deploy
COPY --from=web /app/web/dist ./web/dist
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/nodejs/bin/node", "src/cli/main.ts"]
CMD ["operator"]
