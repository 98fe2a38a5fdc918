#!/usr/bin/env bash
# Which template localstack/deploy.sh deploys, from what the target on :4566
# reports: its health document (LocalStack's /_localstack/health, or
# {"edition": "localcloud"} for the local cloud) and, for LocalStack, the
# HTTP status it answered to GET /v2/apis (API Gateway v2's GetApis).
#
#   localstack/choose-template.sh HEALTH_FILE [V2_STATUS]   # HEALTH_FILE "-" = stdin
#
# Prints the template (template.yaml or template-rest.yaml) on the first line
# and why on the second. No network, no Docker: localstack/tests/deploy-logic.sh
# runs it against health documents of each image kind.
#
#   edition "localcloud"            template.yaml: the local cloud serves HTTP and REST APIs
#   edition "community"             template-rest.yaml: LocalStack's community images (4.14.0
#                                   and older) mark themselves so and have no API Gateway v2
#   edition "unknown"               template-rest.yaml: the open-source core without a marker
#                                   file, as localstack/build.sh builds it; no API Gateway v2
#   any other ("pro", ...)          the unified image (every plan) and the old pro image: the
#                                   edition does not say the plan, so GET /v2/apis decides:
#                                   2xx template.yaml; 501 (not in this license, or no
#                                   provider) template-rest.yaml; anything else
#                                   template-rest.yaml (REST APIs are on every plan)
#
# LocalStack's core takes the edition from the name of a marker file in its
# image (/usr/lib/localstack/.<edition>-version; "unknown" when there is none),
# not from the license; see localstack/README.md for the sources.
set -euo pipefail

if (($# < 1 || $# > 2)); then
    echo "usage: localstack/choose-template.sh HEALTH_FILE [V2_STATUS]" >&2
    exit 2
fi
health_file=$1
v2_status=${2:-}
if [[ "$health_file" == - ]]; then
    health_file=/dev/stdin
fi

# edition and version, tab-separated; exit 3 when the document is no JSON object
fields=$(python3 -c '
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(3)
if not isinstance(doc, dict):
    sys.exit(3)
print("%s\t%s" % (doc.get("edition") or "unknown", doc.get("version") or "?"))
' "$health_file") || {
    echo "choose-template: $1 is not a health document (a JSON object)" >&2
    exit 2
}
edition=${fields%%$'\t'*}
version=${fields#*$'\t'}
probe="GET /v2/apis: ${v2_status:-not asked}"

case "$edition" in
localcloud)
    echo template.yaml
    echo "the local cloud serves HTTP and REST APIs alike"
    ;;
community)
    echo template-rest.yaml
    echo "LocalStack community image ($version): no API Gateway v2 (HTTP APIs) in the open-source core"
    ;;
unknown)
    echo template-rest.yaml
    echo "LocalStack edition unknown ($version; the open-source core as localstack/build.sh builds it): no API Gateway v2 (HTTP APIs)"
    ;;
*)
    case "$v2_status" in
    2??)
        echo template.yaml
        echo "LocalStack edition $edition ($version) serves API Gateway v2 ($probe)"
        ;;
    501)
        echo template-rest.yaml
        echo "LocalStack edition $edition ($version) does not serve API Gateway v2 with this license ($probe; the free Hobby plan has REST APIs only)"
        ;;
    *)
        echo template-rest.yaml
        echo "LocalStack edition $edition ($version): could not tell whether HTTP APIs are served ($probe); REST APIs are on every plan, --http overrides"
        ;;
    esac
    ;;
esac
