# The service as an image: `docker build -t static-deploy .`, then
# `docker run -p 8787:8787 -p 8788:8788 -p 8080:8080 -v static-deploy:/data static-deploy`.
# Not built or run in this project's CI (it has no container runtime): a starting point, see
# docs/operations.md, "Containers".

# The production install (`npm ci --omit=dev`, which builds dist/ through `prepare`), with the
# compiler better-sqlite3 needs when no prebuilt binary downloads for the platform.
FROM node:20-bookworm-slim AS install
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts scripts
COPY src src
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# What runs: the installed tree and dist/, without the compiler.
FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=install /app /app
COPY bin bin
RUN mkdir /data && chown node:node /data
USER node
# Listen on every interface of the container; the data in a volume, outside the image.
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
VOLUME /data
EXPOSE 8787 8788 8080
# The server itself, not `npm start`: no npm process between it and the container's signals, and
# dist/ was built at install.
CMD ["node", "--max-semi-space-size=4", "dist/server/main.js"]
