#!/usr/bin/env bash
# Starts or stops LocalStack from the image localstack/build.sh builds
# (serverless-bench/localstack:latest, LOCALSTACK_IMAGE overrides), on
# 127.0.0.1:4566, as the container `localstack-main` on its own Docker network,
# which the Lambda containers it starts join.
#
#   localstack/run.sh start   # waits until /_localstack/health answers
#   localstack/run.sh stop    # stops it and the Lambda containers it started
#   localstack/run.sh logs    # its log
#
# LocalStack starts each Lambda execution environment as a container of
# 127.0.0.1:5000/lambda/provided:al2023 (our provided.al2023 stand-in, pulled
# from the local registry build.sh fills) through the mounted Docker socket,
# with our init (localstack/init) as /var/rapid/init; the functions reach
# LocalStack at the AWS_ENDPOINT_URL it gives them (its IP on the network).
# The SQS event source mappings poll again 0.1 s after a poll that found
# messages (LocalStack's default, 1 s, adds about a second to the orders queue
# path; Lambda's pollers long-poll), and back off at most 0.5 s after empty
# polls (LocalStack's default, 10 s, left an idle queue's request waiting past
# the Conduit services' 5-s CALL_TIMEOUT_MS). Nothing needs the internet: no certificate download, no DNS server (it
# would only resolve *.localhost.localstack.cloud). Extra settings:
# LOCALSTACK_ENV="DEBUG=1 LAMBDA_KEEPALIVE_MS=60000" localstack/run.sh start
# The image needs no LocalStack account or token (localstack-core from PyPI);
# LOCALSTACK_AUTH_TOKEN, when set, is passed on for an image that does.
set -euo pipefail

image="${LOCALSTACK_IMAGE:-serverless-bench/localstack:latest}"
name=localstack-main
network=serverless-bench-localstack
runtime_image="${LAMBDA_RUNTIME_IMAGE:-127.0.0.1:5000/lambda/provided:al2023}"
health=http://127.0.0.1:4566/_localstack/health

# Lambda containers are named <main container>-lambda-<function>-<id>.
stop_lambdas() {
    local ids
    mapfile -t ids < <(docker ps -aq --filter "name=^$name-lambda-")
    ((${#ids[@]} == 0)) || docker rm -f "${ids[@]}" >/dev/null
}

here="$(cd "$(dirname "$0")" && pwd)"

case "${1:-}" in
start)
    # LocalStack's unified image (LOCALSTACK_IMAGE=localstack/localstack:latest)
    # exits at start without a token: say so before starting it.
    "$here/auth-token.sh" check "$image"
    docker image inspect "$image" >/dev/null 2>&1 ||
        { echo "no image $image: run localstack/build.sh first" >&2; exit 1; }
    docker rm -f "$name" >/dev/null 2>&1 || true
    stop_lambdas
    docker network inspect "$network" >/dev/null 2>&1 || docker network create "$network" >/dev/null
    env_args=()
    for kv in ${LOCALSTACK_ENV:-}; do env_args+=(-e "$kv"); done
    started=$(date +%s%N)
    docker run -d --name "$name" --network "$network" -p 127.0.0.1:4566:4566 \
        -v /var/run/docker.sock:/var/run/docker.sock \
        -e MAIN_CONTAINER_NAME="$name" \
        -e LAMBDA_DOCKER_NETWORK="$network" \
        -e LAMBDA_RUNTIME_IMAGE_MAPPING="{\"provided.al2023\": \"$runtime_image\"}" \
        -e LAMBDA_KEEPALIVE_MS=600000 \
        -e LAMBDA_EVENT_SOURCE_MAPPING_POLL_INTERVAL_SEC=0.1 \
        -e LAMBDA_EVENT_SOURCE_MAPPING_MAX_BACKOFF_ON_EMPTY_POLL_SEC=0.5 \
        -e DYNAMODB_IN_MEMORY=1 \
        -e SKIP_SSL_CERT_DOWNLOAD=1 \
        -e DNS_ADDRESS=0 \
        -e DEBUG="${DEBUG:-0}" \
        ${LOCALSTACK_AUTH_TOKEN:+-e LOCALSTACK_AUTH_TOKEN} \
        "${env_args[@]}" "$image" >/dev/null
    for _ in $(seq 600); do
        curl -sf -o /dev/null "$health" && break
        if [[ "$(docker inspect -f '{{.State.Running}}' "$name" 2>/dev/null)" != true ]]; then
            docker logs --tail 40 "$name" >&2 || true
            echo "LocalStack exited during start-up (log above)" >&2
            "$here/auth-token.sh" explain "$name" || true
            exit 1
        fi
        sleep 0.1
    done
    curl -sf -o /dev/null "$health" || {
        docker logs --tail 40 "$name" >&2
        echo "LocalStack did not answer $health within 60 s" >&2
        exit 1
    }
    echo "LocalStack ($image) ready on 127.0.0.1:4566 in $((($(date +%s%N) - started) / 1000000)) ms"
    ;;
stop)
    # LocalStack stops its Lambda containers when it shuts down; what is left is removed.
    docker stop -t 15 "$name" >/dev/null 2>&1 || true
    docker rm -f "$name" >/dev/null 2>&1 || true
    stop_lambdas
    docker network rm "$network" >/dev/null 2>&1 || true
    echo "LocalStack stopped"
    ;;
logs)
    docker logs "$name"
    ;;
*)
    echo "usage: localstack/run.sh start | stop | logs" >&2
    exit 2
    ;;
esac
