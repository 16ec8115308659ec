# The tideline worker (and, with another command, the local cloud or the CLI) as an image.
#   docker build -t tideline .
#   docker run --rm -e TEMPORAL_ADDRESS=… -e TIDELINE_ENCRYPTION_KEYS=… -e TIDELINE_CLOUD_URL=… tideline
# Debian-based (not Alpine): the Temporal worker's native core needs glibc.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY contract ./contract
COPY cloud ./cloud
COPY local-cloud ./local-cloud
COPY dsl ./dsl
COPY activities ./activities
COPY workflows ./workflows
COPY worker ./worker
COPY stack ./stack
COPY cluster ./cluster
COPY rehearsal ./rehearsal
COPY state ./state
COPY mcp ./mcp
COPY cli ./cli
COPY scripts ./scripts
# Compiles into dist/ and pre-bundles the workflow code (dist/workflow-bundle.js), so workers
# start without bundling; then drops the incremental-build record (the npm package leaves it out
# too) and the build-only packages.
RUN npm run build && rm -f dist/.tsbuildinfo && npm prune --omit=dev --no-audit --no-fund

# The image holds what the npm package ships (package.json "files"; test/unit/package-files.test.ts
# keeps the two lists equal) plus the production node_modules. Tools built at run time (the
# Temporal CLI for `tideline dev`) go to the user's cache (~/.cache/tideline), since /app is
# read-only for the `node` user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY scripts/tools-dir.js scripts/setup-temporal.js scripts/setup-cluster.js ./scripts/
COPY runbooks ./runbooks
COPY schema ./schema
COPY README.md ./
# Where the local cloud keeps its state (a volume in docker-compose.yml), writable by the user.
RUN mkdir -p /data && chown node:node /data
USER node
# Prometheus metrics when TIDELINE_METRICS_ADDRESS=0.0.0.0:9464 is set.
EXPOSE 9464
CMD ["node", "dist/worker/main.js"]
