# LocalStack's open-source core (PyPI localstack-core) on the Debian trixie
# base localstack/build.sh makes with debootstrap: nothing is pulled from
# Docker Hub, and nothing is downloaded when LocalStack starts. What LocalStack
# would otherwise fetch at first use is in place where its installers look:
# Java 21 (Debian's) and DynamoDB Local (from the npm package
# amplify-dynamodb-simulator) with the Java agent LocalStack starts it with.
# Our Lambda init (localstack/init, for LocalStack's lambda-runtime package)
# is added on top by localstack/build.sh (`preinstall.py --init`), a layer of
# its own. build.sh assembles this context outside the checkout; see
# localstack/README.md.
ARG BASE

# Resolves and installs LocalStack's Python dependencies (uv: seconds where
# pip backtracks for minutes) and compiles the no-op DynamoDB Local agent.
# The host's CA bundle (host-ca.crt) lets this stage reach PyPI through the
# host's TLS-intercepting egress; it stays in this stage.
FROM ${BASE} AS build
ARG LOCALSTACK_CORE_VERSION
ARG UV_VERSION
ARG PIP_INDEX_URL=https://pypi.org/simple
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends python3 python3-venv openjdk-21-jdk-headless >/dev/null
COPY host-ca.crt /build/host-ca.crt
ENV SSL_CERT_FILE=/build/host-ca.crt PIP_CERT=/build/host-ca.crt UV_NATIVE_TLS=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 UV_INDEX_URL=${PIP_INDEX_URL} PIP_INDEX_URL=${PIP_INDEX_URL}
RUN python3 -m venv /build/uv && /build/uv/bin/pip install -q "uv==${UV_VERSION}"
# The pins LocalStack 2026.3.0 needs on Python 3.13 (its own requirements let
# newer, incompatible releases in).
RUN /build/uv/bin/uv venv -q --python /usr/bin/python3 /opt/localstack/venv \
    && VIRTUAL_ENV=/opt/localstack/venv /build/uv/bin/uv pip install -q \
        "localstack-core[runtime]==${LOCALSTACK_CORE_VERSION}" \
        'cbor2<6' 'pyOpenSSL==25.3.*' 'cryptography<47' service-identity \
    && VIRTUAL_ENV=/opt/localstack/venv /build/uv/bin/uv pip freeze >/opt/localstack/requirements.lock
COPY NoopAgent.java /build/agent/
RUN cd /build/agent && javac --release 11 NoopAgent.java \
    && printf 'Premain-Class: NoopAgent\n' >manifest && jar cfm noop-agent.jar manifest NoopAgent.class

FROM ${BASE}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends python3 openjdk-21-jre-headless curl procps >/dev/null \
    && rm -rf /var/lib/apt/lists/*
# LocalStack's config: in a container (its directories are then
# /usr/lib/localstack for preinstalled packages, /var/lib/localstack for state).
ENV OVERRIDE_IN_DOCKER=1 \
    PATH=/opt/localstack/venv/bin:$PATH \
    GATEWAY_LISTEN=0.0.0.0:4566 \
    LANG=C.UTF-8 \
    PYTHONUNBUFFERED=1
COPY --from=build /opt/localstack /opt/localstack
COPY --from=build /build/agent/noop-agent.jar /build/preinstall/ddb-agent.jar
COPY dynamodb-local /build/preinstall/dynamodb-local
COPY preinstall.py /opt/localstack/preinstall.py
RUN python /opt/localstack/preinstall.py /build/preinstall && rm -rf /build \
    && mkdir -p /var/lib/localstack /tmp/localstack
EXPOSE 4566
HEALTHCHECK --interval=2s --timeout=3s --retries=60 CMD curl -sf http://127.0.0.1:4566/_localstack/health >/dev/null
ENTRYPOINT ["python", "-m", "localstack.runtime.main"]
