package agent

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// completedRecord is a request with TTFT 100 ms, e2e 1100 ms and 11 tokens: TPOT 100 ms, decode
// 10 tok/s, ITL samples averaging 90 ms (the last token arrived 100 ms before the end).
func completedRecord() Record {
	return Record{
		Outcome: outcomeCompleted, TTFTMs: 100, E2EMs: 1100, OutputTokens: 11,
		ITLMs:  []float64{50, 50, 50, 50, 50, 130, 130, 130, 130, 130},
		TPOTMs: some(100, true), DecodeSpeed: some(10, true),
	}
}

func TestJudgeGoodput(t *testing.T) {
	t.Parallel()
	oneToken := Record{Outcome: outcomeCompleted, TTFTMs: 100, E2EMs: 100, OutputTokens: 1}
	errored := Record{Outcome: outcomeErrored, ErrorKind: kindHTTP5xx}
	thought := completedRecord() // a reasoning model: its answer's first token 300 ms after its first thought
	thought.TTFCMs = some(400, true)
	tests := []struct {
		name   string
		rec    Record
		limits []sloLimit
		want   bool
	}{
		{"no limits: completed is good", completedRecord(), nil, true},
		{"no limits: a failure is not good", errored, nil, false},
		{"a failure is not good whatever the limits", errored, []sloLimit{{sloTTFT, "<", 1e9}}, false},
		{"ttft within", completedRecord(), []sloLimit{{sloTTFT, "<", 101}}, true},
		{"ttft at a strict limit fails", completedRecord(), []sloLimit{{sloTTFT, "<", 100}}, false},
		{"ttft at an inclusive limit holds", completedRecord(), []sloLimit{{sloTTFT, "<=", 100}}, true},
		{"e2e broken", completedRecord(), []sloLimit{{sloE2E, "<", 1000}}, false},
		{"decode speed at a strict lower limit fails", completedRecord(), []sloLimit{{sloDecodeSpeed, ">", 10}}, false},
		{"decode speed at an inclusive lower limit holds", completedRecord(), []sloLimit{{sloDecodeSpeed, ">=", 10}}, true},
		{"tpot within", completedRecord(), []sloLimit{{sloTPOT, "<=", 100}}, true},
		{"itl judged on the request's mean (90 ms)", completedRecord(), []sloLimit{{sloITL, "<", 91}}, true},
		{"itl mean above the limit", completedRecord(), []sloLimit{{sloITL, "<", 90}}, false},
		{"every limit must hold", completedRecord(), []sloLimit{{sloTTFT, "<", 8000}, {sloDecodeSpeed, ">", 15}}, false},
		{"all hold", completedRecord(),
			[]sloLimit{{sloTTFT, "<", 8000}, {sloDecodeSpeed, ">", 5}, {sloE2E, "<", 2000}}, true},
		{"one token: decode figures are not judged", oneToken, []sloLimit{{sloDecodeSpeed, ">", 10}, {sloITL, "<", 1}}, true},
		{"one token: ttft still is", oneToken, []sloLimit{{sloTTFT, "<", 50}, {sloDecodeSpeed, ">", 10}}, false},
		{"ttfc judged on the first content token", thought, []sloLimit{{sloTTFC, "<", 400}}, false},
		{"ttfc within while ttft is too", thought, []sloLimit{{sloTTFC, "<", 401}, {sloTTFT, "<", 101}}, true},
		{"no content token: ttfc is not judged", completedRecord(), []sloLimit{{sloTTFC, "<", 1}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := judgeGoodput(&tc.rec, tc.limits); got != tc.want {
				t.Errorf("judgeGoodput = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStreamSLOMisuse(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, slo, want string }{
		{"not an array", `{"metric":"ttft"}`, "params.slo must be an array"},
		{"a string", `"ttft<8000"`, "params.slo must be an array"},
		{"a limit not an object", `[5]`, "params.slo[0] must be an object"},
		{"a null limit", `[null]`, "params.slo[0] must be an object"},
		{"unknown metric", `[{"metric":"throughput","operator":"<","value":1}]`,
			`params.slo[0].metric "throughput" is not one of: ttft, ttfc, e2e, decodeSpeed, itl, tpot`},
		{"metric missing", `[{"operator":"<","value":1}]`, "params.slo[0].metric (missing) is not one of"},
		{"bad operator", `[{"metric":"ttft","operator":"<","value":1},{"metric":"e2e","operator":"==","value":1}]`,
			`params.slo[1].operator "==" is not one of: <, <=, >, >=`},
		{"value a string", `[{"metric":"ttft","operator":"<","value":"8s"}]`, "params.slo[0].value must be a number"},
		{"value missing", `[{"metric":"ttft","operator":"<"}]`, "params.slo[0].value must be a number"},
		{"value null", `[{"metric":"ttft","operator":"<","value":null}]`, "params.slo[0].value must be a number"},
	}
	ag := newAgent(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ag.misuse(t, []byte(`{"url":"http://127.0.0.1/","slo":`+tc.slo+`}`))
			if !strings.Contains(got, tc.want) {
				t.Fatalf("error %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// TestStreamGoodput: through the API, a request judged against params.slo carries its verdict in
// the record; without slo it carries null.
func TestStreamGoodput(t *testing.T) {
	t.Parallel()
	// Two tokens 40 ms apart: TTFT small, ITL 40 ms, decode speed 25 tok/s (less on a slow machine).
	srv := httptest.NewServer(sse(40*time.Millisecond, 0,
		"data: "+content("a")+"\n\n", "data: "+content("b")+"\n\n", "data: [DONE]\n\n"))
	t.Cleanup(srv.Close)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(failing.Close)
	limit := func(metric, op string, value float64) map[string]any {
		return map[string]any{"metric": metric, "operator": op, "value": value, "label": metric + op}
	}
	tests := []struct {
		name, url string
		slo       []map[string]any
		want      any // the record's goodput
	}{
		{"no slo", srv.URL, nil, nil},
		{"within", srv.URL, []map[string]any{limit("ttft", "<", 30000), limit("itl", ">=", 30)}, true},
		{"a limit broken", srv.URL, []map[string]any{limit("ttft", "<", 30000), limit("itl", "<", 30)}, false},
		{"empty slo judges completion only", srv.URL, []map[string]any{}, true},
		{"a failed request", failing.URL, []map[string]any{limit("ttft", "<", 30000)}, false},
	}
	ag := newAgent(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			params := map[string]any{"url": tc.url}
			if tc.slo != nil {
				params["slo"] = tc.slo
			}
			if got := ag.stream(t, params).Record["goodput"]; got != tc.want {
				t.Errorf("record.goodput = %v, want %v", got, tc.want)
			}
		})
	}
}
