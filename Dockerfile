# desk-library: the template library service.
# Build: docker build -t desk-library .   Run: see docker-compose.yml.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.web.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    DESK_LIBRARY_ROOT=/library
WORKDIR /app
# git keeps the library's history (docs/history.md); without it the service
# starts and says so, but keeps none. openssh-client and ca-certificates let
# git reach the team's remote (DESK_LIBRARY_REMOTE) over ssh:// or git@… and
# https:// (--no-install-recommends leaves both out otherwise); see
# docs/operations.md, Sharing the library from a container.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY harness ./harness
COPY bin ./bin
RUN mkdir -p /library && chown node:node /library
USER node
VOLUME ["/library"]
EXPOSE 8787
# Liveness: GET /api/desk/health on 127.0.0.1:$PORT with DESK_TOKEN as the
# bearer token, or without one on a desk with only a users file, whose 401
# counts as alive (the image has node, not curl); constant time, reads nothing.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "dist/src/healthcheck.js"]
# Listening on all interfaces inside the container is refused without
# DESK_TOKEN or DESK_USERS_FILE (the service checks and exits, saying why).
# A users file is mounted
# read-only and named by DESK_USERS_FILE (docs/security.md, Users and roles).
CMD ["node", "dist/src/server.js"]
