package llm

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	json "github.com/go-json-experiment/json"
	"go.k6.io/k6/metrics"
)

// run runs a script on the VU's event loop and returns globalThis.out as JSON.
func (h *harness) run(t *testing.T, script string) []byte {
	t.Helper()
	if _, err := h.rt.RunOnEventLoop("globalThis.out = {};\n" + script); err != nil {
		t.Fatalf("event loop: %v", err)
	}
	v, err := h.rt.VU.Runtime().RunString(`JSON.stringify(out)`)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(v.String())
}

// serveTranscript answers every request with the transcript, resetting the connection after the
// body when it says so.
func serveTranscript(tr transcript) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		if !tr.reset {
			w.Header().Set("Content-Type", tr.contentType)
			w.WriteHeader(tr.status)
			_, _ = w.Write(tr.body)
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack() //nolint:forcetypeassert // httptest's writer hijacks
		if err != nil {
			return
		}
		_, _ = buf.WriteString("HTTP/1.1 " + itoa(tr.status) + " X\r\nContent-Type: " + tr.contentType +
			"\r\nTransfer-Encoding: chunked\r\n\r\n")
		if len(tr.body) > 0 {
			_, _ = buf.WriteString(strings.ToLower(itoa16(len(tr.body))) + "\r\n")
			_, _ = buf.Write(tr.body)
			_, _ = buf.WriteString("\r\n")
		}
		_ = buf.Flush()
		time.Sleep(20 * time.Millisecond)
		if tcp, ok := conn.(*net.TCPConn); ok {
			_ = tcp.SetLinger(0)
		}
		_ = conn.Close()
	}
}

func itoa16(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 16 {
		b = append([]byte{digits[n%16]}, b...)
	}
	return string(b)
}

// timeless drops a record's time-dependent figures (they depend on the machine), keeping whether
// they are defined and how many ITL samples there are.
func timeless(rec map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range rec {
		switch k {
		case "startMs", "endMs", "ttftMs", "ttfcMs", "e2eMs", "tpotMs", "decodeTokensPerSecond", "prefillTokensPerSecond":
			out[k] = v != nil
		case "itlMs":
			out[k] = len(v.([]any))
		default:
			out[k] = v
		}
	}
	return out
}

// TestTranscriptsOverHTTP: every transcript served over loopback HTTP gives, through the module's
// JavaScript API, the record its expected file holds (the times apart).
func TestTranscriptsOverHTTP(t *testing.T) {
	t.Parallel()
	for _, tr := range transcripts(t) {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(serveTranscript(tr))
			t.Cleanup(srv.Close)
			h := newHarness(t)
			got := h.run(t, `llm.stream(`+paramsJS(srv.URL, "requestedInputTokens: 1024, requestedOutputTokens: 16")+
				`).then((r) => { out.record = r.record; });`)
			var js struct {
				Record map[string]any `json:"record"`
			}
			if err := json.Unmarshal(got, &js); err != nil || js.Record == nil {
				t.Fatalf("%s: %v", got, err)
			}
			var want map[string]any
			if err := json.Unmarshal(recordJSON(ptr(replay(tr))), &want); err != nil {
				t.Fatal(err)
			}
			g, w := timeless(js.Record), timeless(want)
			if tr.reset {
				// The real reset's message names the connection; the kind is what must agree.
				delete(g, "errorMessage")
				delete(w, "errorMessage")
			}
			gb, _ := json.Marshal(g, json.Deterministic(true))
			wb, _ := json.Marshal(w, json.Deterministic(true))
			if !bytes.Equal(gb, wb) {
				t.Errorf("over HTTP:\ngot  %s\nwant %s", gb, wb)
			}
		})
	}
}

func TestStreamPushesTheRecordsSamples(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(5*time.Millisecond, 0,
		"data: "+role+"\n\n", "data: "+content("a")+"\n\n", "data: "+content("b")+"\n\n", "data: "+content("c")+"\n\n",
		"data: "+strings.Replace(usage, "%s", "3", 1)+"\n\n", "data: [DONE]\n\n"))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	got := h.run(t, `llm.stream(`+paramsJS(srv.URL, "tags: { cell: 'c1' }")+`).then((r) => {
		out.record = r.record; out.json = JSON.stringify(r.record.itlMs); out.isArray = Array.isArray(r.record.itlMs);
	});`)
	var js struct {
		Record  map[string]any `json:"record"`
		JSON    string         `json:"json"`
		IsArray bool           `json:"isArray"`
	}
	if err := json.Unmarshal(got, &js); err != nil {
		t.Fatal(err)
	}
	if js.Record["outcome"] != "completed" || js.Record["outputTokens"] != 3.0 || !js.IsArray ||
		!strings.HasPrefix(js.JSON, "[") || strings.Count(js.JSON, ",") != 1 {
		t.Fatalf("record %s", got)
	}
	m := h.drain()
	for name, n := range map[string]int{
		"llm_request_ok": 1, "llm_ttft": 1, "llm_ttfc": 1, "llm_e2e": 1, "llm_itl": 2, "llm_tpot": 1,
		"llm_decode_speed": 1, "llm_prefill_speed": 1, "llm_input_tokens": 1, "llm_output_tokens": 1, "llm_errors": 0,
		"llm_client_read_lag": 1, "llm_client_cpu_seconds": 1, "llm_cached_tokens": 0,
	} {
		if len(m[name]) != n {
			t.Errorf("%s: %d samples, want %d", name, len(m[name]), n)
		}
	}
	ttft := m["llm_ttft"][0]
	if ttft.Value != js.Record["ttftMs"] || ttft.Metric.Contains.String() != "time" {
		t.Errorf("llm_ttft sample %v (%s), record %v", ttft.Value, ttft.Metric.Contains, js.Record["ttftMs"])
	}
	tags := ttft.Tags.Map()
	if tags["vutag"] != "v1" || tags["cell"] != "c1" || tags["url"] != "" {
		t.Errorf("llm_ttft tags %v: the VU's and the request's, no HTTP tags", tags)
	}
	if src, _ := m["llm_output_tokens"][0].Tags.Get("token_source"); src != "usage" || m["llm_output_tokens"][0].Value != 3 {
		t.Errorf("llm_output_tokens %v %v", m["llm_output_tokens"][0].Value, src)
	}
	// The client's own health: the bytes cannot have waited longer than the request lasted, and
	// the process has used some CPU.
	if lag := m["llm_client_read_lag"][0]; lag.Value < 0 || lag.Value > js.Record["e2eMs"].(float64) {
		t.Errorf("llm_client_read_lag %v ms for a request of %v ms", lag.Value, js.Record["e2eMs"])
	}
	if cpu := m["llm_client_cpu_seconds"][0]; cpu.Value <= 0 {
		t.Errorf("llm_client_cpu_seconds %v", cpu.Value)
	}
	if c, _ := m["llm_client_read_lag"][0].Tags.Get("cell"); c != "c1" {
		t.Errorf("client samples carry the request's tags: cell %q", c)
	}
}

// A conversation's turn: result.text is the content as streamed (params.keepText), and the cached
// prompt tokens of its usage reach the record and llm_cached_tokens.
func TestStreamKeepTextAndCachedTokens(t *testing.T) {
	t.Parallel()
	var tr transcript
	for _, x := range transcripts(t) {
		if x.name == "vllm-cached-tokens" {
			tr = x
		}
	}
	srv := httptest.NewServer(serveTranscript(tr))
	t.Cleanup(srv.Close)
	for _, keep := range []string{"true", "false"} {
		h := newHarness(t)
		got := h.run(t, `llm.stream(`+paramsJS(srv.URL, "keepText: "+keep)+`).then((r) => {
			out.text = r.text === undefined ? 'absent' : r.text; out.cached = r.record.cachedTokens;
		});`)
		want := `{"text":" the water is","cached":2096}`
		if keep == "false" {
			want = `{"text":"absent","cached":2096}`
		}
		if string(got) != want {
			t.Errorf("keepText %s: %s, want %s", keep, got, want)
		}
		m := h.drain()
		if c := m["llm_cached_tokens"]; len(c) != 1 || c[0].Value != 2096 || c[0].Metric.Type != metrics.Counter {
			t.Errorf("llm_cached_tokens samples %v", c)
		}
	}
}

func TestStreamErrorSamplesRedactTheKey(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"invalid key ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `"}}`))
	}))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	got := h.run(t, `llm.stream(`+paramsJS(srv.URL, "headers: { Authorization: 'Bearer sk-secret-1' }")+
		`).then((r) => { out.record = r.record; });`)
	if bytes.Contains(got, []byte("sk-secret-1")) || !bytes.Contains(got, []byte(`"errorMessage":"invalid key [redacted]"`)) {
		t.Fatalf("record %s", got)
	}
	m := h.drain()
	if len(m["llm_errors"]) != 1 || len(m["llm_request_ok"]) != 1 || len(m["llm_ttft"]) != 0 {
		t.Fatalf("samples %v", m)
	}
	e := m["llm_errors"][0]
	if kind, _ := e.Tags.Get("error_kind"); kind != "http_4xx" || e.Metadata["error_message"] != "invalid key [redacted]" {
		t.Errorf("llm_errors tags %v metadata %v", e.Tags.Map(), e.Metadata)
	}
	if _, tagged := m["llm_request_ok"][0].Tags.Get("error_kind"); tagged || m["llm_request_ok"][0].Value != 0 {
		t.Errorf("llm_request_ok %v %v", m["llm_request_ok"][0].Value, m["llm_request_ok"][0].Tags.Map())
	}
}

func TestStreamDeferMetrics(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sse(0, 0, "data: "+content("a")+"\n\n", "data: [DONE]\n\n"))
	t.Cleanup(srv.Close)
	h := newHarness(t)
	h.run(t, `llm.stream(`+paramsJS(srv.URL, "deferMetrics: true")+`).then((r) => { globalThis.res = r; });`)
	m := h.drain()
	if len(m["http_reqs"]) != 1 || len(m["llm_request_ok"]) != 0 {
		t.Fatalf("before pushMetrics: http_reqs %d, llm_request_ok %d", len(m["http_reqs"]), len(m["llm_request_ok"]))
	}
	if _, err := h.rt.VU.Runtime().RunString(`res.pushMetrics({ phase: 'measured' })`); err != nil {
		t.Fatal(err)
	}
	m = h.drain()
	if len(m["llm_ttft"]) != 1 {
		t.Fatalf("after pushMetrics: %d llm_ttft samples", len(m["llm_ttft"]))
	}
	if phase, _ := m["llm_ttft"][0].Tags.Get("phase"); phase != "measured" {
		t.Errorf("phase tag %q", phase)
	}
	if _, err := h.rt.VU.Runtime().RunString(`res.pushMetrics()`); err == nil || !strings.Contains(err.Error(), "already pushed") {
		t.Errorf("a second push: %v", err)
	}
}

// A script's own `new Trend('llm_ttft', true)` is the metric the extension pushes to; another type
// under the name is refused.
func TestRequestMetricsAreSharedWithScripts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := h.registry
	m, err := reg.NewMetric("llm_ttft", metrics.Trend, metrics.Time)
	if err != nil || m != reg.Get("llm_ttft") {
		t.Fatalf("same name and type: %v", err)
	}
	if _, err := reg.NewMetric("llm_ttft", metrics.Counter); err == nil {
		t.Error("another type under llm_ttft must be refused")
	}
}
