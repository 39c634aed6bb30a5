# The measuring agent (agent/, Go, Apache-2.0) alone in a minimal image: the sidecar beside stock k6 in k6-operator runner pods. Built by Docker (BuildKit) from the repository root.
#
#   docker build -f deploy/docker/agent.Dockerfile -t registry.example.com/k6-llm-capacity/agent:dev .
#
# The agent listens on 127.0.0.1:7070 (the CMD below), loopback only: only containers that share its network namespace
# reach it, i.e. the k6 container of the same pod (deploy/k6-operator/*.yaml) or a container started with
# `docker run --network container:<agent>`. k6 finds it with LLM_AGENT=http://127.0.0.1:7070. Port 7070, because k6's
# own REST API takes 6565 (the k6-operator talks to it there).
# The image holds the static agent binary, the CA bundle it needs for https endpoints, and the licence: no shell.
# Not built in this repository's CI (no Docker engine there): deploy/README.md.

ARG GO_VERSION=1.26

# --- stage 1: build the agent ------------------------------------------------------------------------
FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src/agent
# Modules first, so a change to the Go sources reuses the downloaded modules layer (go.sum is absent without deps).
COPY agent/go.mod agent/go.sum* ./
RUN go mod download
COPY agent/ ./
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/k6-llm-agent ./cmd/k6-llm-agent

# --- stage 2: the binary and nothing else ------------------------------------------------------------
FROM scratch
LABEL org.opencontainers.image.title="k6-llm-agent" \
      org.opencontainers.image.description="The k6-llm-capacity measuring agent: streams, kernel receive times, one record per request" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/k6-llm-agent /usr/local/bin/k6-llm-agent
COPY LICENSE /usr/share/doc/k6-llm-agent/LICENSE
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/k6-llm-agent"]
CMD ["--host", "127.0.0.1", "--port", "7070"]
