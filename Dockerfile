# The gateway as a container image, built from this checkout the way an operator installs it on another
# machine (README, Installing): the build stage packs the published packages (`pnpm release:pack`),
# the runtime stage installs those tarballs with npm. Nothing of the workspace but the tarballs reaches
# the image. `docker build -t axiom-lattice/gateway .`; compose.yaml runs three replicas of it.
ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The pnpm that package.json pins, from npm: corepack cannot verify pnpm 12's signatures.
COPY package.json ./
RUN npm install --global --no-audit --no-fund "pnpm@$(node -p "require('./package.json').packageManager.split('@')[1]")"
COPY . .
RUN pnpm install --frozen-lockfile && pnpm release:pack

FROM ${NODE_IMAGE}
# HOST=0.0.0.0 serves other containers, so the gateway refuses to start without AUTH_REQUIRED=true
# and its key (or AXIOM_ALLOW_INSECURE=true); NODE_ENV=production refuses the development encryption key.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4001
WORKDIR /app
COPY --from=build /src/release/axiom-lattice-*.tgz ./
# Installed as root and run as the image's unprivileged `node` user: the process cannot change its own code.
RUN npm install --omit=dev --no-audit --no-fund ./axiom-lattice-*.tgz \
    && rm ./axiom-lattice-*.tgz \
    && npm cache clean --force
USER node
EXPOSE 4001
# /health answers 200 while the process serves (/ready also needs the database; see docs/deployment.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/app/node_modules/.bin/lattice-gateway"]
