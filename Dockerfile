# floe's image: the browser client built with Node, then the server on a slim Python runtime.
#
#   docker build --network host -t floe .
#   docker run --network host -e FLOE_SECRET=… -e FLOE_HOST=127.0.0.1 -e FLOE_PORT=8000 floe
#
# The base images are build arguments defaulting to the official ones; on a machine that reaches no
# image registry, deploy/standin-bases.sh makes local stand-ins and their names are given here
# (--build-arg NODE_IMAGE=… --build-arg PYTHON_IMAGE=…). docker-compose.yml runs two of these nodes
# behind HAProxy, with Redis (README: "Several nodes with Docker").
ARG NODE_IMAGE=node:20-bookworm-slim
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- The browser client: npm ci from the committed lock, then the Vite build (dist/). ---
FROM ${NODE_IMAGE} AS web
WORKDIR /src/clients/web
COPY clients/web/package.json clients/web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY clients/web/ ./
# The build ships floe's own rules/ to the browser engine (dist/engine/rules.json).
COPY rules /src/rules
RUN npm run build

# --- The server: floe installed with pip (its dependencies in their own layer), not root. ---
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /opt/floe/src
# The dependencies alone first (read from pyproject.toml), so a change to floe's code reinstalls only floe.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -q -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt
COPY rules rules
COPY protocol protocol
COPY server server
COPY floe_cli floe_cli
RUN pip install -q --no-deps . && rm -rf /opt/floe/src
WORKDIR /opt/floe
COPY --from=web /src/clients/web/dist /opt/floe/web
# The client's web root is FLOE_WEB_ROOT (below); every other setting is a FLOE_* variable too.
RUN useradd --user-group --uid 10001 --home-dir /opt/floe --no-create-home --shell /usr/sbin/nologin floe
ENV FLOE_WEB_ROOT=/opt/floe/web \
    FLOE_HOST=0.0.0.0 \
    FLOE_PORT=8000
USER floe
EXPOSE 8000
# /health on the node's own port (FLOE_PORT); 30 s to start on a loaded machine.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('FLOE_PORT', '8000'), timeout=4).read()"]
# Exec form: `floe serve` is PID 1 and gets SIGTERM itself (it stops gracefully on it).
ENTRYPOINT ["floe", "serve"]
CMD []
