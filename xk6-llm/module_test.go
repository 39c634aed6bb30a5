package llm

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.k6.io/k6/lib"
	"go.k6.io/k6/metrics"
)

func TestStream(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		extra   []string // more params fields
		check   func(t *testing.T, out *jsOut)
	}{
		{
			name:    "events with times",
			handler: sse(60*time.Millisecond, 0, "data: a\n\n", "event: delta\ndata: b\n\n"),
			check: func(t *testing.T, out *jsOut) {
				r, evs := out.Result, out.events()
				if r.Status != 200 || r.ErrorCode != "" || r.Events != 2 || len(evs) != 2 {
					t.Fatalf("result %+v, events %+v", r, evs)
				}
				if evs[0] != (jsEvent{Time: evs[0].Time, Data: "a"}) || evs[1] != (jsEvent{Time: evs[1].Time, Name: "delta", Data: "b"}) {
					t.Errorf("events %+v", evs)
				}
				// Stamped when read: the server's 60 ms gap, on the scale of the result's times.
				if gap := evs[1].Time - evs[0].Time; gap < 50 || gap > 500 {
					t.Errorf("gap between events %.1f ms, want ~60", gap)
				}
				if !(r.StartTime <= r.HeadersTime && r.HeadersTime <= evs[0].Time && evs[1].Time <= r.EndTime) {
					t.Errorf("times out of order: start %v head %v events %v end %v", r.StartTime, r.HeadersTime, evs, r.EndTime)
				}
				if r.Headers["content-type"] != "text/event-stream" {
					t.Errorf("headers %v", r.Headers)
				}
			},
		},
		{
			name: "CRLF, comments, keep-alives, multi-line data, invalid lines",
			handler: sse(0, 0, ": keep-alive\r\n\r\n", "data: a\r\ndata: b\r", "\n\r\nretry: 5\r\n\r\n",
				"{\"error\":\"bad\"}\r\n", "id: 1\r\nevent: done\r\ndata:\r\n\r\n"),
			check: func(t *testing.T, out *jsOut) {
				evs := out.events()
				if len(evs) != 2 || evs[0].Data != "a\nb" || evs[1].Name != "done" || evs[1].Data != "" {
					t.Errorf("events %+v", evs)
				}
				if r := out.Result; r.InvalidLines != 1 || r.FirstInvalidLine != `{"error":"bad"}` || r.Body != "" {
					t.Errorf("result %+v", r)
				}
			},
		},
		{
			name: "non-2xx body kept (first 4 KiB)",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte("CUDA out of memory\ndata: x\n\n" + long))
			},
			check: func(t *testing.T, out *jsOut) {
				r := out.Result
				if r.Status != 503 || r.ErrorCode != "" || r.Events != 0 || len(r.Body) != maxBodyBytes ||
					!strings.HasPrefix(r.Body, "CUDA out of memory\ndata: x\n\nxxx") {
					t.Errorf("result %+v", r)
				}
			},
		},
		{
			name: "non-event-stream body kept",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"error":"model not found"}` + "\ndata: x\n\n"))
			},
			check: func(t *testing.T, out *jsOut) {
				if r := out.Result; r.Status != 200 || r.Events != 0 || r.Body != "{\"error\":\"model not found\"}\ndata: x\n\n" {
					t.Errorf("result %+v", r)
				}
			},
		},
		{
			name:    "reset mid-stream: chunked body cut",
			handler: hijacked(false),
			check: func(t *testing.T, out *jsOut) {
				if r := out.Result; r.ErrorCode != "reset" || r.Status != 200 || r.Events != 1 || r.Error == "" {
					t.Errorf("result %+v", r)
				}
			},
		},
		{
			name:    "reset mid-stream: RST",
			handler: hijacked(true),
			check: func(t *testing.T, out *jsOut) {
				if r := out.Result; r.ErrorCode != "reset" || r.Events != 1 {
					t.Errorf("result %+v", r)
				}
			},
		},
		{
			name:    "idle timeout",
			handler: sse(0, 2*time.Second, "data: a\n\n"),
			extra:   []string{"idleTimeout: '150ms'", "timeout: 1.5"},
			check: func(t *testing.T, out *jsOut) {
				r := out.Result
				if r.ErrorCode != "idle_timeout" || r.Status != 200 || r.Events != 1 {
					t.Errorf("result %+v", r)
				}
				if d := r.EndTime - r.StartTime; d < 140 || d > 1000 {
					t.Errorf("ended after %.0f ms, want ~150", d)
				}
			},
		},
		{
			name:    "idle timeout reset by keep-alives",
			handler: sse(80*time.Millisecond, 0, "data: a\n\n", ": ka\n\n", ": ka\n\n", ": ka\n\n", "data: b\n\n"),
			extra:   []string{"idleTimeout: 0.15"},
			check: func(t *testing.T, out *jsOut) {
				if r := out.Result; r.ErrorCode != "" || r.Events != 2 {
					t.Errorf("result %+v", r)
				}
			},
		},
		{
			name: "header timeout",
			handler: func(_ http.ResponseWriter, r *http.Request) {
				sleep(r.Context(), 2*time.Second)
			},
			extra: []string{"headerTimeout: '150ms'", "connectTimeout: '1s'", "idleTimeout: '100ms'"},
			check: func(t *testing.T, out *jsOut) {
				r := out.Result
				if r.ErrorCode != "header_timeout" || r.Status != 0 || r.HeadersTime != 0 {
					t.Errorf("result %+v", r)
				}
				if d := r.EndTime - r.StartTime; d < 140 || d > 1000 {
					t.Errorf("ended after %.0f ms, want ~150", d)
				}
			},
		},
		{
			name:    "whole timeout",
			handler: sse(20*time.Millisecond, 0, strings.Split(strings.Repeat("data: x\n\n|", 100), "|")...),
			extra:   []string{"timeout: '200ms'", "idleTimeout: '1s'"},
			check: func(t *testing.T, out *jsOut) {
				r := out.Result
				if r.ErrorCode != "timeout" || r.Events < 3 || r.Events != len(out.events()) {
					t.Errorf("result %+v", r)
				}
				if d := r.EndTime - r.StartTime; d < 190 || d > 1000 {
					t.Errorf("ended after %.0f ms, want ~200", d)
				}
			},
		},
		{
			name:    "line too long",
			handler: sse(0, 0, "data: a\n\n", "data: "+strings.Repeat("y", MaxLineBytes)+"\n\n"),
			check: func(t *testing.T, out *jsOut) {
				if r := out.Result; r.ErrorCode != "line_too_long" || r.Events != 1 {
					t.Errorf("result %+v", r)
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
			extra: []string{"method: 'put'", "headers: { Authorization: 'Bearer k' }", "body: '{\"p\":1}'"},
			check: func(t *testing.T, out *jsOut) {
				evs := out.events()
				if len(evs) != 1 || evs[0].Data != `PUT text/event-stream k6-test/1.0 Bearer k {"p":1}` {
					t.Errorf("events %+v", evs)
				}
				if out.Result.Headers["x-multi"] != "a, b" {
					t.Errorf("headers %v", out.Result.Headers)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.handler)
			t.Cleanup(srv.Close)
			h := newHarness(t)
			out := h.stream(t, paramsJS(srv.URL+"/v1/chat", tc.extra...), "")
			if out.Rejected != nil {
				t.Fatalf("rejected: %s", *out.Rejected)
			}
			tc.check(t, out)
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

func TestStreamResolvesWithoutResponse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + ln.Addr().String() + "/"
	_ = ln.Close()
	tests := []struct {
		name, params, code string
	}{
		{"connection refused", paramsJS(closedURL), "connect"},
		{"unsupported scheme", paramsJS("ftp://127.0.0.1/"), "invalid_request"},
		{"no host", paramsJS("http:///x"), "invalid_request"},
		{"invalid method", paramsJS(closedURL, "method: 'GE T'"), "invalid_request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			out := h.stream(t, tc.params, "")
			if r := out.Result; r == nil || r.ErrorCode != tc.code || r.Status != 0 || r.Error == "" {
				t.Fatalf("result %+v, rejected %v", r, out.Rejected)
			}
			m := h.drain()
			if len(m["http_reqs"]) != 1 || m["http_req_failed"][0].Value != 1 {
				t.Errorf("samples %v", m)
			}
		})
	}
}

func TestStreamConnectTimeout(t *testing.T) {
	t.Parallel()
	// A dial that never completes: loopback connects at once, so the slowness is the dialer's.
	h := newHarness(t, func(s *lib.State) {
		s.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	})
	out := h.stream(t, paramsJS("http://127.0.0.1:1/", "connectTimeout: '100ms'", "timeout: '1s'"), "")
	r := out.Result
	if r.ErrorCode != "connect_timeout" || r.Status != 0 {
		t.Fatalf("result %+v", r)
	}
	if d := r.EndTime - r.StartTime; d < 90 || d > 800 {
		t.Errorf("ended after %.0f ms, want ~100", d)
	}
}

func TestStreamCancelledVU(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(0, 2*time.Second, "data: a\n\n"))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	time.AfterFunc(150*time.Millisecond, h.rt.CancelContext)
	started := time.Now()
	out := h.stream(t, paramsJS(srv.URL), "")
	if r := out.Result; r.ErrorCode != "cancelled" || r.Events != 1 {
		t.Fatalf("result %+v", r)
	}
	if d := time.Since(started); d > time.Second {
		t.Errorf("took %v to end after the VU's context", d)
	}
	if m := h.drain(); len(m) != 0 {
		t.Errorf("samples pushed after the VU's context ended: %v", m)
	}
}

func TestStreamOnEventsThrows(t *testing.T) {
	t.Parallel()
	served := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(10*time.Millisecond, 0, strings.Split(strings.Repeat("data: x\n\n|", 150), "|")...)(w, r)
		served <- r.Context().Err()
	}))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	out := h.stream(t, paramsJS(srv.URL), `if (out.batches.length === 2) throw new Error("boom");`)
	if out.Rejected == nil || !strings.Contains(*out.Rejected, "boom") || out.Result != nil {
		t.Fatalf("rejected %v, result %+v", out.Rejected, out.Result)
	}
	if len(out.Batches) != 2 {
		t.Errorf("onEvents called %d times, want 2 (none after the throw)", len(out.Batches))
	}
	select {
	case err := <-served:
		if err == nil {
			t.Error("the server streamed to the end: the request was not cancelled")
		}
	case <-time.After(time.Second):
		t.Error("the request was not cancelled")
	}
	if m := h.drain(); len(m["http_req_failed"]) != 1 || m["http_req_failed"][0].Value != 1 {
		t.Errorf("http_req_failed %v", m["http_req_failed"])
	}
}

func TestStreamBatchesWhenTheScriptIsBusy(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(30*time.Millisecond, 0, "data: 0\n\n", "data: 1\n\n", "data: 2\n\n", "data: 3\n\n", "data: 4\n\n"))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	// The first call keeps the JS thread busy while the rest arrive.
	out := h.stream(t, paramsJS(srv.URL),
		`if (out.batches.length === 1) { const until = Date.now() + 200; while (Date.now() < until) {} }`)
	evs := out.events()
	if len(evs) != 5 || out.Result.Events != 5 {
		t.Fatalf("events %+v", evs)
	}
	if len(out.Batches) >= 5 {
		t.Errorf("%d batches: the events read while the script was busy were not delivered together", len(out.Batches))
	}
	for i := 1; i < len(evs); i++ {
		// Times are the reads', not the delivery's: the ~30 ms gaps survive the busy script.
		if gap := evs[i].Time - evs[i-1].Time; gap < 20 {
			t.Errorf("event %d: %.1f ms after the previous one, want ~30", i, gap)
		}
	}
}

func TestStreamMetrics(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(0, 0, "data: a\n\n"))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	url := srv.URL + "/v1"
	for i := range 2 {
		out := h.stream(t, paramsJS(url, "tags: { scenario_kind: 'chat', n: 1, b: true }"), "")
		if out.Result.ErrorCode != "" {
			t.Fatalf("result %+v", out.Result)
		}
		m := h.drain()
		for _, name := range []string{"http_reqs", "http_req_duration", "http_req_failed", "http_req_waiting", "http_req_connecting"} {
			if len(m[name]) != 1 {
				t.Fatalf("%s: %d samples", name, len(m[name]))
			}
			tags := m[name][0].Tags.Map()
			want := map[string]string{
				"method": "POST", "url": url, "name": url, "status": "200", "expected_response": "true",
				"vutag": "v1", "scenario_kind": "chat", "n": "1", "b": "true",
			}
			for k, v := range want {
				if tags[k] != v {
					t.Errorf("%s: tag %s = %q, want %q (tags %v)", name, k, tags[k], v, tags)
				}
			}
		}
		if m["http_reqs"][0].Value != 1 || m["http_req_failed"][0].Value != 0 || m["http_req_duration"][0].Value <= 0 {
			t.Errorf("values: %v", m)
		}
		connecting := m["http_req_connecting"][0].Value
		if i == 0 && connecting <= 0 {
			t.Errorf("first request: http_req_connecting %v, want > 0", connecting)
		}
		if i == 1 && connecting != 0 {
			t.Errorf("second request (connection reused): http_req_connecting %v, want 0", connecting)
		}
	}

	// The name tag replaces the URL in `name`, not in `url`; a 500 is failed and unexpected.
	srv500 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(srv500.Close)
	h.stream(t, paramsJS(srv500.URL, "tags: { name: 'chat' }"), "")
	m := h.drain()
	tags := m["http_reqs"][0].Tags.Map()
	if tags["name"] != "chat" || tags["url"] != srv500.URL || tags["status"] != "500" || tags["expected_response"] != "false" {
		t.Errorf("tags %v", tags)
	}
	if m["http_req_failed"][0].Value != 1 {
		t.Errorf("http_req_failed %v", m["http_req_failed"][0].Value)
	}
}

func TestStreamSystemTags(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(0, 0, "data: a\n\n"))
	t.Cleanup(srv.Close)
	h := newHarness(t, func(s *lib.State) {
		s.Options.SystemTags = metrics.ToSystemTagSet([]string{"status"})
	})
	h.stream(t, paramsJS(srv.URL), "")
	tags := h.drain()["http_reqs"][0].Tags.Map()
	if tags["status"] != "200" || tags["url"] != "" || tags["method"] != "" {
		t.Errorf("tags %v: only the enabled system tags are wanted", tags)
	}
}

func TestStreamMisuseThrows(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, call, want string }{
		{"params not an object", `llm.stream("http://x", () => {})`, "params must be an object"},
		{"params null", `llm.stream(null, () => {})`, "params must be an object"},
		{"url missing", `llm.stream({}, () => {})`, "params.url is required"},
		{"onEvents not a function", `llm.stream({ url: "http://127.0.0.1/" }, 5)`, "onEvents must be a function"},
		{"bad token count", `llm.stream({ url: "http://127.0.0.1/", requestedInputTokens: 1.5 })`, "params.requestedInputTokens"},
		{"deferMetrics not a boolean", `llm.stream({ url: "http://127.0.0.1/", deferMetrics: 1 })`, "params.deferMetrics"},
		{"bad duration", `llm.stream({ url: "http://127.0.0.1/", timeout: "soon" }, () => {})`, "params.timeout"},
		{"negative duration", `llm.stream({ url: "http://127.0.0.1/", idleTimeout: -1 }, () => {})`, "params.idleTimeout"},
		{"duration of a wrong type", `llm.stream({ url: "http://127.0.0.1/", connectTimeout: {} }, () => {})`, "params.connectTimeout"},
		{"bad tag", `llm.stream({ url: "http://127.0.0.1/", tags: { a: {} } }, () => {})`, "invalid value for tag a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			_, err := h.rt.RunOnEventLoop(tc.call)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestStreamDurations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want time.Duration
	}{
		{"600s", 600 * time.Second}, {"1m30s", 90 * time.Second}, {"250ms", 250 * time.Millisecond},
		{"1d", 24 * time.Hour}, {"30", 30 * time.Second}, {1.5, 1500 * time.Millisecond}, {0, 0}, {nil, 0},
	}
	h := newHarness(t)
	rt := h.rt.VU.Runtime()
	for _, tc := range tests {
		got, err := durationParam(rt.ToValue(tc.in), "timeout")
		if err != nil || got != tc.want {
			t.Errorf("%v: got %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestStreamInInitContextThrows(t *testing.T) {
	t.Parallel()
	rt := newHarness(t).rt
	rt.VU.StateField = nil
	_, err := rt.RunOnEventLoop(`llm.stream({ url: "http://127.0.0.1/" }, () => {})`)
	if err == nil || !strings.Contains(err.Error(), "init context") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamParseJSON(t *testing.T) {
	t.Parallel()
	chunk := `{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":{"completion_tokens":3}}`
	// A duplicate name is JSON that JSON.parse takes (the last one wins), and so does the extension.
	srv := httptest.NewServer(sse(0, 0, "data: "+chunk+"\n\n", "data: null\n\n", `data: {"a":1,"a":2}`+"\n\n", "data: [DONE]\n\n"))
	t.Cleanup(srv.Close)
	for _, parse := range []bool{true, false} {
		h := newHarness(t)
		// What a script reads from e.json: the shapes lib/stream.ts readChunk relies on.
		out := h.stream(t, paramsJS(srv.URL, "parseJson: "+strconv.FormatBool(parse)), `
			out.seen = (out.seen || []).concat(evs.map((e) => e.json === undefined ? 'none'
				: e.json === null ? 'null'
				: !e.json.choices ? 'a=' + e.json.a
				: [Array.isArray(e.json.choices), e.json.choices[0].delta.content, e.json.choices[0].finish_reason,
					typeof e.json.usage.completion_tokens, e.json.usage.completion_tokens].join('|')));
		`)
		v, err := h.rt.VU.Runtime().RunString(`out.seen.join(',')`)
		if err != nil {
			t.Fatal(err)
		}
		want := "true|hi||number|3,null,a=2,none"
		if !parse {
			want = "none,none,none,none"
		}
		if got := v.String(); got != want || len(out.events()) != 4 {
			t.Errorf("parseJson %v: json seen %q, want %q", parse, got, want)
		}
	}
	_, err := newHarness(t).rt.RunOnEventLoop(`llm.stream({ url: "http://127.0.0.1/", parseJson: "yes" }, () => {})`)
	if err == nil || !strings.Contains(err.Error(), "params.parseJson") {
		t.Errorf("parseJson of a wrong type: err = %v", err)
	}
}
