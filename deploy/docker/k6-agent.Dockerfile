# Stock k6 (the official grafana/k6 image, unmodified) plus the measuring agent and the suite's bundles: the image for Docker and CI runs. Built by Docker (BuildKit) from the repository root.
#
#   npm ci && npm run build          # dist/<script>.js
#   docker build -f deploy/docker/k6-agent.Dockerfile -t k6-llm-capacity:k6-1.8.1-agent .
#   docker run --rm -e BASE_URL=http://host.docker.internal:8000/v1 k6-llm-capacity:k6-1.8.1-agent \
#     run /scripts/gate.js -o experimental-prometheus-rw --tag testid=gate-$(date +%Y%m%d-%H%M%S)
#
# The entrypoint (k6-agent-entrypoint.sh) starts the agent on 127.0.0.1:7070 inside the container, waits for its
# "agent listening on" line and GET /health, exports LLM_AGENT and then execs `k6 "$@"`: the arguments are k6's.
# k6 itself is the official image's binary, untouched; the agent is a separate program of ours (Apache-2.0).
# The k6-operator cannot use this entrypoint (it sets the runner's command to `k6 run ...`): its manifests run
# grafana/k6 with the agent as a sidecar instead (deploy/k6-operator/). Not built in this repository's CI (no Docker
# engine there): deploy/README.md.

ARG GO_VERSION=1.26
ARG K6_IMAGE_TAG=1.8.1

# --- stage 1: build the agent ------------------------------------------------------------------------
FROM golang:${GO_VERSION}-bookworm AS agent
WORKDIR /src/agent
COPY agent/go.mod agent/go.sum* ./
RUN go mod download
COPY agent/ ./
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/k6-llm-agent ./cmd/k6-llm-agent

# --- stage 2: the official k6 image with the agent, the entrypoint and the bundles --------------------
FROM grafana/k6:${K6_IMAGE_TAG}
LABEL org.opencontainers.image.title="k6-llm-capacity" \
      org.opencontainers.image.description="Stock k6 with the k6-llm-capacity measuring agent and bundles in /scripts"
COPY --from=agent /out/k6-llm-agent /usr/local/bin/k6-llm-agent
COPY --chmod=0755 deploy/docker/k6-agent-entrypoint.sh /usr/local/bin/k6-agent-entrypoint.sh
# The bundles are self-contained ESM scripts (k6 and k6/* stay external), with their source maps so k6 reports errors
# at TypeScript lines; build them before `docker build`.
COPY dist/ /scripts/
COPY LICENSE /usr/share/doc/k6-llm-capacity/LICENSE
# Defaults for remote write; override per run. The dashboard expects exactly these trend stats.
ENV K6_PROMETHEUS_RW_TREND_STATS="p(50),p(90),p(95),p(99),avg,max,count" \
    LLM_AGENT_PORT=7070
# handleSummary writes summary.json and plan.json under RESULTS_DIR, relative to the working directory:
# mount a volume at /home/k6/results to keep them.
WORKDIR /home/k6
ENTRYPOINT ["/usr/local/bin/k6-agent-entrypoint.sh"]
