# The service's image: TypeScript compiled in a build stage, the JavaScript run as the unprivileged `node` user.
# Build: docker build -t isil-ld .   Run: docker run -p 8080:8080 -v isil-ld-data:/data isil-ld

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The lock file alone decides the dependencies; this layer is reused until it changes.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src/ src/
COPY cli/ cli/
RUN npm run build
# The bundled dataset's files are third-party (data/sources.json), never in the repository: fetched
# by the same command as on a developer's machine, checked against their SHA-256, from the folder of
# the build context that THIRD_PARTY_DIR names (data/third-party after `npm run fetch-data`), or
# else from their origins. A file that is missing or does not match fails the build.
ARG THIRD_PARTY_DIR=
COPY data/sources.json data/
RUN --mount=type=bind,target=/context \
    THIRD_PARTY_DIR="${THIRD_PARTY_DIR:+/context/${THIRD_PARTY_DIR}}" node dist/cli/fetchData.js --bundled

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/ dist/
COPY docker-entrypoint.sh runtime.sh LICENSE-MIT LICENSE-APACHE ./
# src/util/paths.ts finds the project root as the folder with package.json and queries/.
COPY queries/ queries/
# The agency's code lists, read at start (src/rdf/codeLists.ts).
COPY vocab/ vocab/
# The pages' stylesheet and scripts, served as they are (src/http/assets.ts).
COPY src/http/assets/ src/http/assets/
# Served when no snapshot exists at DATASET yet: the files of BUNDLED_DATASET (src/util/bundled.ts),
# fetched in the build stage.
COPY --from=build /app/data/ data/

# A new named volume takes the owner of the image's /data, so `node` can write the snapshot there.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]

# Every setting with its default (src/config/config.ts), except HOST and DATASET, which suit a container.
ENV PORT=8080 \
    HOST=0.0.0.0 \
    BASE_IRI=https://ld.zdb-services.de \
    PUBLIC_URL= \
    DATASET=/data/dataset.nq \
    ISIL_DIRECTORY_URL= \
    LOG_LEVEL=info \
    CACHE_MAX_BYTES=268435456 \
    CACHE_MAX_AGE=3600 \
    HEADERS_TIMEOUT_MS=10000 \
    REQUEST_TIMEOUT_MS=30000 \
    KEEP_ALIVE_TIMEOUT_MS=5000 \
    MAX_CONNECTIONS= \
    SHUTDOWN_GRACE_MS=10000 \
    HEAP_GROWING_PERCENT=100 \
    SPARQL_USERS= \
    SPARQL_LISTEN= \
    SPARQL_WORKERS=2 \
    SPARQL_TIMEOUT_MS=30000 \
    SPARQL_IDLE_SECONDS=300 \
    SPARQL_QUEUE=16 \
    SPARQL_PER_USER=2 \
    SPARQL_MAX_ROWS=100000 \
    SPARQL_MAX_RESULT_BYTES=67108864 \
    SPARQL_MAX_BODY_BYTES=1048576 \
    SPARQL_MAX_FAILURES=10 \
    SPARQL_WORKER_MEMORY_MB=2048 \
    THIRD_PARTY_DIR= \
    STORE=embedded \
    SPARQL_ENDPOINT= \
    SPARQL_ENDPOINT_USER= \
    SPARQL_ENDPOINT_PASSWORD= \
    SPARQL_ENDPOINT_PASSWORD_FILE= \
    STORE_CONNECTIONS=4 \
    STORE_TIMEOUT_MS=10000 \
    STORE_POLL_SECONDS=0 \
    METRICS_LISTEN= \
    DUMPS_DIR=/data/dumps \
    MAP_TILES=https://tile.openstreetmap.org/{z}/{x}/{y}.png \
    MAP_ATTRIBUTION="© OpenStreetMap contributors"

USER node
EXPOSE 8080

# The slim image has no curl: Node's own fetch asks /healthz (200 while the process is alive).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# On the first start with an empty /data the entry point writes the bundled dataset's snapshot
# there (the server refuses a DATASET that is set but missing), then execs the command: node is
# PID 1 and handles SIGTERM: it stops accepting, drains for SHUTDOWN_GRACE_MS, exits. Both run
# with the runtime's settings of runtime.sh (glibc's malloc), as `npm start` does.
ENTRYPOINT ["./runtime.sh", "./docker-entrypoint.sh"]
CMD ["node", "dist/src/main.js"]
