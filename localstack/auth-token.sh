#!/usr/bin/env bash
# Since 23 March 2026 (LocalStack 2026.03) `localstack/localstack:latest` is
# LocalStack's unified image, which exits at start (status 55) unless
# LOCALSTACK_AUTH_TOKEN is set. This script says so in one line instead of
# leaving a container that silently exited (see localstack/README.md).
#
#   localstack/auth-token.sh check IMAGE
#       before a start: exit 1 with the line when IMAGE needs a token
#       (localstack/localstack:latest or a 2026.x tag, localstack/localstack-pro)
#       and LOCALSTACK_AUTH_TOKEN is empty; exit 0 otherwise (a token is set,
#       or the image needs none: localstack/localstack:4.14.0 and older tags,
#       the image localstack/build.sh builds, any other image)
#   localstack/auth-token.sh explain CONTAINER...
#       after a failed start: exit 0 with the line when one of the containers
#       exited for want of a token (status 55, or a token-needing image
#       whose log names LOCALSTACK_AUTH_TOKEN); exit 1 otherwise
set -euo pipefail

line() {
    echo "LocalStack ($1) needs LOCALSTACK_AUTH_TOKEN: export it (a free LocalStack account gives one: https://app.localstack.cloud/sign-up), or run without a token: LOCALSTACK_IMAGE=localstack/localstack:4.14.0, or localstack/build.sh && localstack/run.sh start (localstack/README.md)"
}

# 0 when IMAGE is one of LocalStack's images that exit without a token.
needs_token() {
    local image=${1#docker.io/} repo tag
    image=${image#index.docker.io/}
    [[ "$image" == *@* ]] && return 1 # pinned by digest: cannot tell
    repo=${image%%:*}
    tag=latest
    [[ "$image" == *:* ]] && tag=${image#*:}
    case "$repo" in
    localstack/localstack-pro) return 0 ;;
    localstack/localstack)
        # the community releases up to and including 4.14.0 (26 Feb 2026) run
        # without a token; `latest`, `stable` and the 2026.x releases do not
        [[ "$tag" =~ ^[0-4]($|\.) ]] && return 1
        return 0
        ;;
    *) return 1 ;;
    esac
}

case "${1:-}" in
check)
    (($# == 2)) || { echo "usage: localstack/auth-token.sh check IMAGE" >&2; exit 2; }
    if [[ -z "${LOCALSTACK_AUTH_TOKEN:-}" ]] && needs_token "$2"; then
        line "$2" >&2
        exit 1
    fi
    ;;
explain)
    shift
    for container in "$@"; do
        state=$(docker inspect -f '{{.State.Status}} {{.State.ExitCode}} {{.Config.Image}}' "$container" 2>/dev/null) || continue
        read -r status code image <<<"$state"
        [[ "$status" == exited ]] || continue
        # 55: the unified image's exit status when its license activation
        # fails; its log then asks for LOCALSTACK_AUTH_TOKEN
        if [[ "$code" == 55 ]] ||
            { needs_token "$image" && docker logs --tail 60 "$container" 2>&1 | grep -q LOCALSTACK_AUTH_TOKEN; }; then
            line "$image" >&2
            exit 0
        fi
    done
    exit 1
    ;;
*)
    echo "usage: localstack/auth-token.sh check IMAGE | explain CONTAINER..." >&2
    exit 2
    ;;
esac
