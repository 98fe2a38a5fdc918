# The stand-in for public.ecr.aws/lambda/provided:al2023 that LocalStack
# starts each Lambda execution environment from (LAMBDA_RUNTIME_IMAGE_MAPPING).
# LocalStack copies its init (ours, localstack/init) to /var/rapid/init and the
# function's code to /var/task; a Rust bootstrap needs glibc and, for HTTPS,
# the CA bundle, both in the Debian base (built by localstack/build.sh).
ARG BASE
FROM ${BASE}
RUN mkdir -p /var/task /var/runtime /var/rapid /opt && chmod 1777 /tmp
ENV LANG=C.UTF-8 TZ=:/etc/localtime LAMBDA_TASK_ROOT=/var/task LAMBDA_RUNTIME_DIR=/var/runtime
WORKDIR /var/task
ENTRYPOINT ["/var/rapid/init"]
