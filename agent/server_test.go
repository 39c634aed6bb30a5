package agent

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// streamCase is one upstream behaviour and what the agent must answer to it.
type streamCase struct {
	name    string
	handler http.HandlerFunc
	fields  map[string]any // more params fields
	check   func(t *testing.T, a *testAnswer)
}

func streamCases() []streamCase {
	var all []streamCase
	for _, group := range [][]streamCase{streamEventCases(), streamBodyCases(), streamCutCases(), streamTimeoutCases()} {
		all = append(all, group...)
	}
	return all
}

// streamEventCases: streams read whole, their events, times, headers and request.
func streamEventCases() []streamCase {
	return []streamCase{
		{
			name:    "events with times",
			handler: sse(60*time.Millisecond, 0, "data: a\n\n", "event: delta\ndata: b\n\n"),
			fields:  map[string]any{"timeOriginMs": 5000.5},
			check: func(t *testing.T, a *testAnswer) {
				evs := a.Events
				if a.Status != 200 || a.ErrorCode != "" || a.events() != 2 || len(evs) != 2 {
					t.Fatalf("answer %+v", a)
				}
				if evs[0].Name != "" || evs[0].Data != "a" || evs[1].Name != "delta" || evs[1].Data != "b" {
					t.Errorf("events %+v", evs)
				}
				// Stamped on arrival: the server's 60 ms gap, on the caller's scale.
				if gap := evs[1].TimeMs - evs[0].TimeMs; gap < 50 || gap > 500 {
					t.Errorf("gap between events %.1f ms, want ~60", gap)
				}
				if a.StartTime != 5000.5 {
					t.Errorf("startTime %v, want the caller's time origin 5000.5", a.StartTime)
				}
				if !(a.StartTime <= a.HeadersTime && a.HeadersTime <= evs[0].TimeMs && evs[1].TimeMs <= a.EndTime) {
					t.Errorf("times out of order: start %v head %v events %v end %v", a.StartTime, a.HeadersTime, evs, a.EndTime)
				}
				if a.Headers["content-type"] != "text/event-stream" {
					t.Errorf("headers %v", a.Headers)
				}
			},
		},
		{
			name: "CRLF, comments, keep-alives, multi-line data, invalid lines",
			handler: sse(0, 0, ": keep-alive\r\n\r\n", "data: a\r\ndata: b\r", "\n\r\nretry: 5\r\n\r\n",
				"{\"error\":\"bad\"}\r\n", "id: 1\r\nevent: done\r\ndata:\r\n\r\n"),
			check: func(t *testing.T, a *testAnswer) {
				evs := a.Events
				if len(evs) != 2 || evs[0].Data != "a\nb" || evs[1].Name != "done" || evs[1].Data != "" {
					t.Errorf("events %+v", evs)
				}
				if a.InvalidLines != 1 || a.FirstInvalidLine != `{"error":"bad"}` || a.Body != "" {
					t.Errorf("answer %+v", a)
				}
			},
		},
		{
			name: "request headers and body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				body := make([]byte, 64)
				n, _ := r.Body.Read(body)
				w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
				w.Header().Add("X-Multi", "a")
				w.Header().Add("X-Multi", "b")
				_, _ = w.Write([]byte("data: " + r.Method + " " + r.Header.Get("Accept") + " " +
					r.Header.Get("User-Agent") + " " + r.Header.Get("Authorization") + " " + string(body[:n]) + "\n\n"))
			},
			fields: map[string]any{
				"method": "put", "headers": map[string]string{"Authorization": "Bearer sk-test"}, "body": `{"p":1}`,
			},
			check: func(t *testing.T, a *testAnswer) {
				evs := a.Events
				if len(evs) != 1 || evs[0].Data != `PUT text/event-stream `+userAgent+` [redacted] {"p":1}` {
					t.Errorf("events %+v", evs)
				}
				if a.Headers["x-multi"] != "a, b" {
					t.Errorf("headers %v", a.Headers)
				}
			},
		},
	}
}

// streamBodyCases: answers that are not an event stream, whose body the agent keeps.
func streamBodyCases() []streamCase {
	long := strings.Repeat("x", 5000)
	return []streamCase{
		{
			name: "non-2xx body kept (first 4 KiB)",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte("CUDA out of memory\ndata: x\n\n" + long))
			},
			check: func(t *testing.T, a *testAnswer) {
				if a.Status != 503 || a.ErrorCode != "" || a.events() != 0 || len(a.Body) != maxBodyBytes ||
					!strings.HasPrefix(a.Body, "CUDA out of memory\ndata: x\n\nxxx") {
					t.Errorf("answer %+v", a)
				}
				if a.Record["errorKind"] != "http_5xx" || a.Record["errorMessage"] != "CUDA out of memory data: x xxxxx"[:32] &&
					!strings.HasPrefix(a.Record["errorMessage"].(string), "CUDA out of memory") {
					t.Errorf("record %v", a.Record)
				}
			},
		},
		{
			name: "non-event-stream body kept",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"error":"model not found"}` + "\ndata: x\n\n"))
			},
			check: func(t *testing.T, a *testAnswer) {
				if a.Status != 200 || a.events() != 0 || a.Body != "{\"error\":\"model not found\"}\ndata: x\n\n" {
					t.Errorf("answer %+v", a)
				}
			},
		},
	}
}

// streamCutCases: streams the connection or the reader cuts short.
func streamCutCases() []streamCase {
	return []streamCase{
		{
			name:    "reset mid-stream: chunked body cut",
			handler: hijacked(false),
			check: func(t *testing.T, a *testAnswer) {
				if a.ErrorCode != "reset" || a.Status != 200 || a.events() != 1 || a.Error == "" {
					t.Errorf("answer %+v", a)
				}
			},
		},
		{
			name:    "reset mid-stream: RST",
			handler: hijacked(true),
			check: func(t *testing.T, a *testAnswer) {
				if a.ErrorCode != "reset" || a.events() != 1 {
					t.Errorf("answer %+v", a)
				}
			},
		},
		{
			name:    "line too long",
			handler: sse(0, 0, "data: a\n\n", "data: "+strings.Repeat("y", MaxLineBytes)+"\n\n"),
			check: func(t *testing.T, a *testAnswer) {
				if a.ErrorCode != "line_too_long" || a.events() != 1 {
					t.Errorf("answer %+v", a)
				}
			},
		},
	}
}

// streamTimeoutCases: each of the agent's timeouts ending a request.
func streamTimeoutCases() []streamCase {
	return []streamCase{
		{
			name:    "idle timeout",
			handler: sse(0, 2*time.Second, "data: a\n\n"),
			fields:  map[string]any{"idleTimeout": "150ms", "timeout": 1.5},
			check: func(t *testing.T, a *testAnswer) {
				if a.ErrorCode != "idle_timeout" || a.Status != 200 || a.events() != 1 {
					t.Errorf("answer %+v", a)
				}
				if d := a.EndTime - a.StartTime; d < 140 || d > 1000 {
					t.Errorf("ended after %.0f ms, want ~150", d)
				}
			},
		},
		{
			name:    "idle timeout reset by keep-alives",
			handler: sse(80*time.Millisecond, 0, "data: a\n\n", ": ka\n\n", ": ka\n\n", ": ka\n\n", "data: b\n\n"),
			fields:  map[string]any{"idleTimeout": 0.15},
			check: func(t *testing.T, a *testAnswer) {
				if a.ErrorCode != "" || a.events() != 2 {
					t.Errorf("answer %+v", a)
				}
			},
		},
		{
			name: "header timeout",
			handler: func(_ http.ResponseWriter, r *http.Request) {
				sleep(r.Context(), 2*time.Second)
			},
			fields: map[string]any{"headerTimeout": "150ms", "connectTimeout": "1s", "idleTimeout": "100ms"},
			check: func(t *testing.T, a *testAnswer) {
				if a.ErrorCode != "header_timeout" || a.Status != 0 || a.HeadersTime != 0 ||
					a.Record["errorKind"] != "ttfb_timeout" {
					t.Errorf("answer %+v", a)
				}
				if d := a.EndTime - a.StartTime; d < 140 || d > 1000 {
					t.Errorf("ended after %.0f ms, want ~150", d)
				}
			},
		},
		{
			name:    "whole timeout",
			handler: sse(20*time.Millisecond, 0, repeatChunks("data: x\n\n", 100)...),
			fields:  map[string]any{"timeout": "200ms", "idleTimeout": "1s"},
			check: func(t *testing.T, a *testAnswer) {
				if a.ErrorCode != "timeout" || a.events() < 3 || a.events() != len(a.Events) {
					t.Errorf("answer %+v", a)
				}
				if d := a.EndTime - a.StartTime; d < 190 || d > 1000 {
					t.Errorf("ended after %.0f ms, want ~200", d)
				}
			},
		},
	}
}

func TestStream(t *testing.T) {
	t.Parallel()
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.handler)
			t.Cleanup(srv.Close)
			tc.check(t, newAgent(t).stream(t, with(srv.URL+"/v1/chat", tc.fields)))
		})
	}
}

// hijacked writes a chunked event-stream head and one event, then cuts the connection in the
// middle of the body: closed (the chunked body ends without its last chunk) or reset (RST).
func hijacked(rst bool) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack() //nolint:forcetypeassert // httptest's writer hijacks
		if err != nil {
			return
		}
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"b\r\ndata: one\n\n\r\n" + "5\r\ndata:")
		_ = buf.Flush()
		time.Sleep(20 * time.Millisecond)
		if tcp, ok := conn.(*net.TCPConn); ok && rst {
			_ = tcp.SetLinger(0)
		}
		_ = conn.Close()
	}
}

func TestStreamWithoutResponse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + ln.Addr().String() + "/"
	_ = ln.Close()
	tests := []struct {
		name   string
		params map[string]any
		code   string
	}{
		{"connection refused", with(closedURL, nil), "connect"},
		{"unsupported scheme", with("ftp://127.0.0.1/", nil), "invalid_request"},
		{"a file", with("file:///etc/passwd", nil), "invalid_request"},
		{"no host", with("http:///x", nil), "invalid_request"},
		{"invalid method", with(closedURL, map[string]any{"method": "GE T"}), "invalid_request"},
	}
	ag := newAgent(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := ag.stream(t, tc.params)
			if a.ErrorCode != tc.code || a.Status != 0 || a.Error == "" || a.Record["errorKind"] != "connection" {
				t.Fatalf("answer %+v", a)
			}
		})
	}
}

func TestStreamConnectTimeout(t *testing.T) {
	t.Parallel()
	url, ok := unansweredAddress(t)
	if !ok {
		t.Skip("could not fill a listener's backlog on this system")
	}
	a := newAgent(t).stream(t, with(url, map[string]any{"connectTimeout": "100ms", "timeout": "2s"}))
	if a.ErrorCode != "connect_timeout" || a.Status != 0 || a.Record["errorKind"] != "connect_timeout" {
		t.Fatalf("answer %+v", a)
	}
	if d := a.EndTime - a.StartTime; d < 90 || d > 1000 {
		t.Errorf("ended after %.0f ms, want ~100", d)
	}
}

// When the caller drops its call (k6 ends a scenario, Ctrl-C), the upstream request is cancelled:
// the server must not keep generating for nobody.
func TestStreamCancelledWithTheCall(t *testing.T) {
	t.Parallel()
	served := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(10*time.Millisecond, 0, repeatChunks("data: x\n\n", 300)...)(w, r)
		served <- r.Context().Err()
	}))
	t.Cleanup(srv.Close)
	ag := newAgent(t)
	b, _ := json.Marshal(with(srv.URL, nil))
	client := &http.Client{Timeout: 150 * time.Millisecond}
	if resp, err := client.Post(ag.url+"/stream", "application/json", strings.NewReader(string(b))); err == nil {
		_ = resp.Body.Close()
		t.Fatal("the 3 s stream was answered within 150 ms")
	}
	select {
	case err := <-served:
		if err == nil {
			t.Error("the server streamed to the end: the upstream request was not cancelled")
		}
	case <-time.After(2 * time.Second):
		t.Error("the upstream request was not cancelled within 2 s of the call being dropped")
	}
}

// A request in flight ends when the agent shuts down.
func TestStreamEndsOnShutdown(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(0, 5*time.Second, "data: a\n\n"))
	t.Cleanup(srv.Close)
	ag := newAgent(t)
	time.AfterFunc(150*time.Millisecond, ag.cancel)
	started := time.Now()
	a := ag.stream(t, with(srv.URL, nil))
	if a.ErrorCode != "cancelled" || a.events() != 1 {
		t.Fatalf("answer %+v", a)
	}
	if d := time.Since(started); d > 2*time.Second {
		t.Errorf("took %v to end after the shutdown", d)
	}
}

func TestStreamMisuse(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, params, want string }{
		{"params not an object", `"http://x"`, "params must be a JSON object"},
		{"params null", `null`, "params.url is required"},
		{"not JSON", `{url:`, "params must be a JSON object"},
		{"url missing", `{}`, "params.url is required"},
		{"url not a string", `{"url":5}`, "params.url must not be a JSON number"},
		{"bad token count", `{"url":"http://127.0.0.1/","requestedInputTokens":1.5}`, "params.requestedInputTokens"},
		{"keepText not a boolean", `{"url":"http://127.0.0.1/","keepText":1}`, "params.keepText"},
		{"bad duration", `{"url":"http://127.0.0.1/","timeout":"soon"}`, "params.timeout"},
		{"negative duration", `{"url":"http://127.0.0.1/","idleTimeout":-1}`, "params.idleTimeout"},
		{"duration of a wrong type", `{"url":"http://127.0.0.1/","connectTimeout":{}}`, "params.connectTimeout"},
		{"header not a string", `{"url":"http://127.0.0.1/","headers":{"a":{}}}`, "params.headers"},
		{"time origin not a number", `{"url":"http://127.0.0.1/","timeOriginMs":"0"}`, "params.timeOriginMs"},
	}
	ag := newAgent(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ag.misuse(t, []byte(tc.params)); !strings.HasPrefix(got, errPrefix) || !strings.Contains(got, tc.want) {
				t.Fatalf("error %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

func TestDurations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
	}{
		{`"600s"`, 600 * time.Second}, {`"1m30s"`, 90 * time.Second}, {`"250ms"`, 250 * time.Millisecond},
		{`"1d"`, 24 * time.Hour}, {`"1d12h"`, 36 * time.Hour}, {`"30"`, 30 * time.Second}, {`1.5`, 1500 * time.Millisecond},
		{`0`, 0}, {`null`, 0}, {``, 0},
	}
	for _, tc := range tests {
		got, err := durationParam(json.RawMessage(tc.in), "timeout")
		if err != nil || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// GET / names the error kinds and message limit the caller's tables must hold (lib/record.ts).
func TestAbout(t *testing.T) {
	t.Parallel()
	ag := newAgent(t)
	resp, err := http.Get(ag.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var about About
	if err := json.NewDecoder(resp.Body).Decode(&about); err != nil {
		t.Fatal(err)
	}
	if about.Version != Version || len(about.ErrorKinds) != 14 || about.ErrorMessageMax != errorMessageMax {
		t.Errorf("about %+v", about)
	}
	health, err := http.Get(ag.url + "/health")
	if err != nil || health.StatusCode != 200 {
		t.Fatalf("health %v %v", health, err)
	}
	_ = health.Body.Close()
	if resp, err := http.Get(ag.url + "/stream"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /stream: %v %v", resp, err)
	}
}

// The answer carries the agent's own health: its CPU, and the read lag where the kernel stamps.
func TestStreamHealth(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(0, 0, "data: "+content("a")+"\n\n", "data: [DONE]\n\n"))
	t.Cleanup(srv.Close)
	a := newAgent(t).stream(t, with(srv.URL, nil))
	if cpu, ok := a.Health["cpuPerCore"].(float64); !ok || cpu <= 0 {
		t.Errorf("health %v", a.Health)
	}
	if lag, ok := a.Health["readLagMs"].(float64); kernelTimestamps && (!ok || lag < 0) {
		t.Errorf("health %v: no read lag with kernel receive times", a.Health)
	}
}

// Many streams at once, each on its own pool, are each answered with their own record.
func TestStreamConcurrent(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(5*time.Millisecond, 0,
		"data: "+content("a")+"\n\n", "data: "+content("b")+"\n\n", "data: [DONE]\n\n"))
	t.Cleanup(srv.Close)
	ag := newAgent(t)
	const n = 200
	var ok atomic.Int32
	done := make(chan struct{})
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			b, _ := json.Marshal(map[string]any{"url": srv.URL, "pool": "vu-" + string(rune('a'+i%26))})
			resp, err := http.Post(ag.url+"/stream", "application/json", strings.NewReader(string(b)))
			if err != nil {
				return
			}
			defer func() { _ = resp.Body.Close() }()
			var a testAnswer
			if json.NewDecoder(resp.Body).Decode(&a) == nil && a.Record["outcome"] == "completed" {
				ok.Add(1)
			}
		}()
	}
	for range n {
		<-done
	}
	if got := ok.Load(); got != n {
		t.Errorf("%d of %d concurrent streams completed", got, n)
	}
}
