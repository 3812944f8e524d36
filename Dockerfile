# syntax=docker/dockerfile:1
# One image runs `slipway operator` (the default) or `slipway server` (args: ["server"]).
# The operator and the server run compiled JavaScript (dist/, `npm run build`): Node's type stripping
# would add ~20 MB to every process (docs/runtime.md), and so does the build Jobs' fetcher
# (dist/builds/fetch-artifact.js): the image holds no TypeScript.

ARG NODE_VERSION=24
# The base images. tools/images/build.sh passes locally built ones (this machine reaches no registry):
# a Node base of its own with node at /nodejs/bin/node, as in distroless.
ARG BUILD_BASE=node:${NODE_VERSION}-slim
ARG RUNTIME_BASE=gcr.io/distroless/nodejs${NODE_VERSION}-debian12:nonroot
# Where the production node_modules (/app/node_modules) and the built UI (/app/web/dist) come from: the
# stages below, or (tools/images/build.sh, with no npm registry) an image that already holds them.
ARG DEPS_FROM=deps
ARG WEB_FROM=web
ARG DIST_FROM=dist

# The web UI (web/dist), built with the dev dependencies.
FROM ${BUILD_BASE} AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY web ./web
COPY src ./src
RUN npm run build:web

# The compiled JavaScript (dist/), built with the dev dependencies (TypeScript).
FROM ${BUILD_BASE} AS dist
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only.
FROM ${BUILD_BASE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts

FROM ${DEPS_FROM} AS deps-output
FROM ${WEB_FROM} AS web-output
FROM ${DIST_FROM} AS dist-output

# Runtime: distroless Node 24, no shell, non-root (uid/gid 65532, as the bundle's Deployment runs it).
FROM ${RUNTIME_BASE}
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps-output /app/node_modules ./node_modules
COPY package.json ./
COPY --from=dist-output /app/dist ./dist
COPY tools/kube/versions.env ./tools/kube/versions.env
COPY deploy ./deploy
COPY --from=web-output /app/web/dist ./web/dist
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/nodejs/bin/node", "dist/cli/main.js"]
CMD ["operator"]
