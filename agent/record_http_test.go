package agent

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
			_, _ = buf.WriteString(strconv.FormatInt(int64(len(tr.body)), 16) + "\r\n")
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

// timeless drops a record's time-dependent figures (they depend on the machine), keeping whether
// they are defined and how many ITL samples there are.
func timeless(rec map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range rec {
		switch k {
		case "startMs", "endMs", "ttftMs", "ttfcMs", "e2eMs", "tpotMs", "decodeTokensPerSecond", "prefillTokensPerSecond":
			out[k] = v != nil
		case "itlMs":
			out[k] = len(v.([]any)) //nolint:forcetypeassert // a completed record's itlMs is an array
		default:
			out[k] = v
		}
	}
	return out
}

// TestTranscriptsOverHTTP: every transcript served over loopback HTTP gives, through the agent's
// API, the record its expected file holds (the times apart).
func TestTranscriptsOverHTTP(t *testing.T) {
	t.Parallel()
	ag := newAgent(t)
	for _, tr := range transcripts(t) {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(serveTranscript(tr))
			t.Cleanup(srv.Close)
			a := ag.stream(t, map[string]any{"url": srv.URL, "requestedInputTokens": 1024, "requestedOutputTokens": 16})
			var want map[string]any
			if err := json.Unmarshal(recordJSON(ptr(replay(tr))), &want); err != nil {
				t.Fatal(err)
			}
			g, w := timeless(a.Record), timeless(want)
			// The body goes out in one write, so its tokens and its end mostly share one kernel receive
			// time, and decode speed ((tokens - 1) / (e2e - TTFT)) is then undefined: whether the bytes
			// came in one segment or two is the machine's doing, not the transcript's.
			delete(g, "decodeTokensPerSecond")
			delete(w, "decodeTokensPerSecond")
			if tr.reset {
				// The real reset's message names the connection; the kind is what must agree.
				delete(g, "errorMessage")
				delete(w, "errorMessage")
			}
			gb, _ := json.Marshal(g) // map keys sorted
			wb, _ := json.Marshal(w)
			if !bytes.Equal(gb, wb) {
				t.Errorf("over HTTP:\ngot  %s\nwant %s", gb, wb)
			}
		})
	}
}

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
	ag := newAgent(t)
	for _, keep := range []bool{true, false} {
		a := ag.stream(t, map[string]any{"url": srv.URL, "keepText": keep})
		if a.Record["cachedTokens"] != 2096.0 {
			t.Errorf("keepText %v: cachedTokens %v", keep, a.Record["cachedTokens"])
		}
		switch {
		case keep && (a.Text == nil || *a.Text != " the water is"):
			t.Errorf("keepText: text %v", a.Text)
		case !keep && a.Text != nil:
			t.Errorf("no keepText: text %q", *a.Text)
		}
	}
}

// No answer carries the API key: the server's message that echoes it is redacted, in the record
// and in the transport's error.
func TestStreamRedactsTheKey(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		_, _ = w.Write([]byte(`{"error":{"message":"invalid key ` + key + `"}}`))
	}))
	t.Cleanup(srv.Close)
	ag := newAgent(t)
	headers := map[string]string{"Authorization": "Bearer sk-secret-1"}
	status, body := ag.post(t, map[string]any{"url": srv.URL, "headers": headers})
	if status != 200 || bytes.Contains(body, []byte("sk-secret-1")) ||
		!bytes.Contains(body, []byte(`"errorMessage":"invalid key [redacted]"`)) ||
		!bytes.Contains(body, []byte(`"errorKind":"http_4xx"`)) {
		t.Fatalf("answer %s", body)
	}
}
