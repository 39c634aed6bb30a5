package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// agentServer is the agent's API served on loopback, as k6 calls it.
type agentServer struct {
	url    string
	cancel context.CancelFunc
}

func newAgent(t *testing.T) *agentServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := NewServer(ctx)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		cancel()
		srv.Close()
		s.Close()
	})
	return &agentServer{url: srv.URL, cancel: cancel}
}

// testAnswer is the answer as a caller decodes it: the record stays generic, as JSON.parse sees it.
type testAnswer struct {
	Record           map[string]any    `json:"record"`
	Status           int               `json:"status"`
	Headers          map[string]string `json:"headers"`
	Error            string            `json:"error"`
	ErrorCode        string            `json:"errorCode"`
	Body             string            `json:"body"`
	StartTime        float64           `json:"startTime"`
	SentTime         float64           `json:"sentTime"`
	HeadersTime      float64           `json:"headersTime"`
	EndTime          float64           `json:"endTime"`
	InvalidLines     int               `json:"invalidLines"`
	FirstInvalidLine string            `json:"firstInvalidLine"`
	Text             *string           `json:"text"`
	Events           []timedEvent      `json:"events"`
	Health           map[string]any    `json:"health"`
}

// events is the record's count of events read.
func (a *testAnswer) events() int {
	n, _ := a.Record["events"].(float64)
	return int(n)
}

// post sends a stream request and returns the HTTP status and body of the agent's answer.
func (a *agentServer) post(t *testing.T, params any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return a.postRaw(t, b)
}

func (a *agentServer) postRaw(t *testing.T, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(a.url+"/stream", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// stream sends a stream request that must be answered, and decodes the answer.
func (a *agentServer) stream(t *testing.T, params map[string]any) *testAnswer {
	t.Helper()
	status, body := a.post(t, params)
	if status != http.StatusOK {
		t.Fatalf("agent answered %d: %s", status, body)
	}
	var out testAnswer
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return &out
}

// misuse sends a stream request that must be refused, and returns the agent's message.
func (a *agentServer) misuse(t *testing.T, params []byte) string {
	t.Helper()
	status, body := a.postRaw(t, params)
	if status != http.StatusBadRequest {
		t.Fatalf("agent answered %d, want 400: %s", status, body)
	}
	var out struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Error
}

// with returns params for url with more fields.
func with(url string, fields map[string]any) map[string]any {
	p := map[string]any{"url": url, "events": true}
	for k, v := range fields {
		p[k] = v
	}
	return p
}

// sse serves an event stream written in the given chunks, flushed one by one with gap between
// them, and then waits for the client to go away or hold (a hanging server) to pass.
func sse(gap, hold time.Duration, chunks ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher) //nolint:forcetypeassert // httptest's writer flushes
		f.Flush()
		for i, c := range chunks {
			if i > 0 && gap > 0 {
				if !sleep(r.Context(), gap) {
					return
				}
			}
			_, _ = w.Write([]byte(c))
			f.Flush()
		}
		sleep(r.Context(), hold)
	}
}

// sleep waits for d or the context; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// repeatChunks is n copies of an event, for a stream that outlasts a timeout.
func repeatChunks(event string, n int) []string {
	return strings.Split(strings.TrimSuffix(strings.Repeat(event+"|", n), "|"), "|")
}
