package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"time"
)

// maxParamsBytes bounds a stream request's JSON: a 256K-token prompt is about 1 MB of text.
const maxParamsBytes = 64 << 20

// Server answers the agent's HTTP API (docs/reference/agent-api.md): POST /stream runs one streaming request and
// answers with its record; GET /health and GET / say it is up and what it is.
type Server struct {
	pools *pools
	// ctx ends every request in flight when the agent shuts down.
	ctx context.Context
}

// NewServer returns a server whose requests end when ctx does.
func NewServer(ctx context.Context) *Server {
	startStallMeter()
	return &Server{pools: newPools(), ctx: ctx}
}

// Handler routes the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /stream", s.stream)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /stalls", stalls)
	mux.HandleFunc("GET /{$}", s.about)
	return mux
}

// Close closes the pools' idle connections.
func (s *Server) Close() {
	s.pools.closeIdle()
}

// About is the answer of GET /: what this agent is and the lists a caller holds its own to.
type About struct {
	Agent           string   `json:"agent"`
	Version         string   `json:"version"`
	ErrorKinds      []string `json:"errorKinds"`
	ErrorMessageMax int      `json:"errorMessageMax"`
	// KernelTimestamps says whether token times are the kernel's receive times on this system.
	KernelTimestamps bool   `json:"kernelTimestamps"`
	GoVersion        string `json:"goVersion"`
}

// Version is the agent's API version: it changes when a request or answer field changes meaning.
const Version = "1"

func (s *Server) about(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, About{
		Agent:            "k6-llm-capacity-agent",
		Version:          Version,
		ErrorKinds:       errorKinds,
		ErrorMessageMax:  errorMessageMax,
		KernelTimestamps: kernelTimestamps,
		GoVersion:        runtime.Version(),
	})
}

// Stalls is the answer of GET /stalls: the longest stall of the machine under the agent within a window.
type Stalls struct {
	// LongestMs is in ms; null when the meter is not running.
	LongestMs optional `json:"longestMs"`
}

// stalls answers the longest stall between the query's fromEpochMs and toEpochMs (wall clock, ms): a caller that
// ran a part of a load test asks it afterwards, so a stall that only requests cut unanswered ran across still counts.
func stalls(w http.ResponseWriter, req *http.Request) {
	var bounds [2]time.Time
	for i, key := range []string{"fromEpochMs", "toEpochMs"} {
		ms, err := strconv.ParseInt(req.URL.Query().Get(key), 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, errPrefix+key+" must be an integer (ms since the epoch)")
			return
		}
		bounds[i] = time.UnixMilli(ms)
	}
	longest, metered := meter.longest(bounds[0], bounds[1])
	writeJSON(w, http.StatusOK, Stalls{LongestMs: some(float64(longest)/float64(time.Millisecond), metered)})
}

// stream runs one request. Its context ends when the caller drops the call (k6 ending a scenario,
// Ctrl-C) or the agent shuts down: the upstream request is cancelled with it, so the server stops
// generating, and nobody is left to read the answer.
func (s *Server) stream(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxParamsBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, errPrefix+"params are larger than 64 MiB")
			return
		}
		writeError(w, http.StatusBadRequest, errPrefix+"reading params: "+err.Error())
		return
	}
	p, err := parseParams(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	lane := s.pools.acquire(p.pool, p.insecureSkipTLSVerify)
	a := runStream(ctx, p, lane)
	s.pools.release(p.pool, p.insecureSkipTLSVerify, lane)
	if req.Context().Err() != nil {
		return // the caller is gone
	}
	writeJSON(w, http.StatusOK, a)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	if err := writeJSONValue(&b, v); err != nil {
		writeError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// writeError answers a misuse: {"error": message}.
func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
