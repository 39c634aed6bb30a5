#!/bin/sh
# Entrypoint of the k6-agent image: starts the measuring agent on loopback, waits until it answers, then execs stock k6.
#
#   k6-agent-entrypoint.sh run /scripts/gate.js ...   ->   k6-llm-agent (background) + exec k6 run /scripts/gate.js ...
#
# The agent prints "agent listening on http://HOST:PORT" as its first stdout line; the URL is taken from that line and
# GET <url>/health must answer 200 before k6 starts. LLM_AGENT is exported: k6 copies the environment into __ENV, so
# the scripts find the agent without -e. LLM_AGENT_PORT picks the port (7070 in the image; 0 = any free port).
# Needs only a POSIX sh and wget (busybox in the grafana/k6 image).
set -eu

port="${LLM_AGENT_PORT:-7070}"
out="$(mktemp "${TMPDIR:-/tmp}/k6-llm-agent.XXXXXX")"
k6-llm-agent --host 127.0.0.1 --port "$port" >"$out" &
agent=$!

url=''
tries=0
while :; do
  if ! kill -0 "$agent" 2>/dev/null; then
    echo "k6-agent-entrypoint: k6-llm-agent exited before it answered /health" >&2
    exit 1
  fi
  # Only a whole first line (newline written) can be trusted to hold the whole URL.
  lines="$(wc -l <"$out")"
  if [ -z "$url" ] && [ $((lines)) -ge 1 ]; then
    line="$(head -n 1 "$out")"
    case "$line" in
      'agent listening on http://'*) url="${line#agent listening on }" ;;
      *) echo "k6-agent-entrypoint: unexpected first line from k6-llm-agent: $line" >&2; kill "$agent"; exit 1 ;;
    esac
  fi
  if [ -n "$url" ] && wget -q -T 2 -O /dev/null "$url/health" 2>/dev/null; then break; fi
  tries=$((tries + 1))
  if [ "$tries" -ge 150 ]; then
    echo "k6-agent-entrypoint: k6-llm-agent did not answer ${url:-(no listening line)}/health within 30 s" >&2
    kill "$agent"
    exit 1
  fi
  sleep 0.2
done

export LLM_AGENT="$url"
echo "k6-agent-entrypoint: measuring agent at $LLM_AGENT (pid $agent)" >&2
exec k6 "$@"
