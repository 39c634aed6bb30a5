package llm

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
	tests := []struct {
		name   string
		rec    Record
		limits []sloLimit
		want   bool
	}{
		{"no limits: completed is good", completedRecord(), nil, true},
		{"no limits: a failure is not good", errored, nil, false},
		{"a failure is not good whatever the limits", errored, []sloLimit{{keyTTFT, "<", 1e9}}, false},
		{"ttft within", completedRecord(), []sloLimit{{keyTTFT, "<", 101}}, true},
		{"ttft at a strict limit fails", completedRecord(), []sloLimit{{keyTTFT, "<", 100}}, false},
		{"ttft at an inclusive limit holds", completedRecord(), []sloLimit{{keyTTFT, "<=", 100}}, true},
		{"e2e broken", completedRecord(), []sloLimit{{keyE2E, "<", 1000}}, false},
		{"decode speed at a strict lower limit fails", completedRecord(), []sloLimit{{keyDecodeSpeed, ">", 10}}, false},
		{"decode speed at an inclusive lower limit holds", completedRecord(), []sloLimit{{keyDecodeSpeed, ">=", 10}}, true},
		{"tpot within", completedRecord(), []sloLimit{{keyTPOT, "<=", 100}}, true},
		{"itl judged on the request's mean (90 ms)", completedRecord(), []sloLimit{{keyITL, "<", 91}}, true},
		{"itl mean above the limit", completedRecord(), []sloLimit{{keyITL, "<", 90}}, false},
		{"every limit must hold", completedRecord(), []sloLimit{{keyTTFT, "<", 8000}, {keyDecodeSpeed, ">", 15}}, false},
		{"all hold", completedRecord(), []sloLimit{{keyTTFT, "<", 8000}, {keyDecodeSpeed, ">", 5}, {keyE2E, "<", 2000}}, true},
		{"one token: decode figures are not judged", oneToken, []sloLimit{{keyDecodeSpeed, ">", 10}, {keyITL, "<", 1}}, true},
		{"one token: ttft still is", oneToken, []sloLimit{{keyTTFT, "<", 50}, {keyDecodeSpeed, ">", 10}}, false},
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

func TestSLOSamples(t *testing.T) {
	t.Parallel()
	good, bad := true, false
	tests := []struct {
		name    string
		rec     Record
		goodput *bool
		want    []float64 // the llm_goodput samples
	}{
		{"no slo: no sample", completedRecord(), nil, nil},
		{"good", completedRecord(), &good, []float64{1}},
		{"not good", completedRecord(), &bad, []float64{0}},
		{"failed", Record{Outcome: outcomeErrored, ErrorKind: kindHTTP5xx}, &bad, []float64{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			metricsOf, err := registerRequestMetrics(h.registry)
			if err != nil {
				t.Fatal(err)
			}
			tc.rec.Goodput = tc.goodput
			var got []float64
			for _, s := range recordSamples(metricsOf, &tc.rec, h.state.Tags.GetCurrentValues(), time.Now()) {
				if s.Metric.Name == "llm_goodput" {
					got = append(got, s.Value)
				}
			}
			if len(got) != len(tc.want) || (len(got) == 1 && got[0] != tc.want[0]) {
				t.Errorf("llm_goodput samples %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStreamSLOMisuseThrows(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, slo, want string }{
		{"not an array", `{ metric: "ttft" }`, "params.slo must be an array"},
		{"a string", `"ttft<8000"`, "params.slo must be an array"},
		{"a limit not an object", `[5]`, "params.slo[0] must be an object"},
		{"a null limit", `[null]`, "params.slo[0] must be an object"},
		{"unknown metric", `[{ metric: "throughput", operator: "<", value: 1 }]`,
			`params.slo[0].metric "throughput" is not one of: ttft, e2e, decodeSpeed, itl, tpot`},
		{"metric missing", `[{ operator: "<", value: 1 }]`, "params.slo[0].metric (missing) is not one of"},
		{"bad operator", `[{ metric: "ttft", operator: "<", value: 1 }, { metric: "e2e", operator: "==", value: 1 }]`,
			`params.slo[1].operator "==" is not one of: <, <=, >, >=`},
		{"value a string", `[{ metric: "ttft", operator: "<", value: "8s" }]`, "params.slo[0].value must be a number"},
		{"value missing", `[{ metric: "ttft", operator: "<" }]`, "params.slo[0].value must be a number"},
		{"value not finite", `[{ metric: "ttft", operator: "<", value: Infinity }]`, "params.slo[0].value must be a finite number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			_, err := h.rt.RunOnEventLoop(`llm.stream({ url: "http://127.0.0.1/", slo: ` + tc.slo + ` })`)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestStreamGoodput: through the module, a request judged against params.slo carries its verdict
// in the record and pushes one llm_goodput sample with the request's tags; without slo neither.
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
	tests := []struct {
		name, url, slo string
		want           string // the record's goodput as JSON
		sample         []float64
	}{
		{"no slo", srv.URL, "", "null", nil},
		{"within", srv.URL, `slo: [{ metric: "ttft", operator: "<", value: 30000 }, { metric: "itl", operator: ">=", value: 30 }]`,
			"true", []float64{1}},
		{"a limit broken", srv.URL, `slo: [{ metric: "ttft", operator: "<", value: 30000 }, { metric: "itl", operator: "<", value: 30 }]`,
			"false", []float64{0}},
		{"empty slo judges completion only", srv.URL, `slo: []`, "true", []float64{1}},
		{"a failed request", failing.URL, `slo: [{ metric: "ttft", operator: "<", value: 30000, label: "TTFT < 30 s" }]`,
			"false", []float64{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			params := paramsJS(tc.url, "tags: { use_case: 'chat' }")
			if tc.slo != "" {
				params = paramsJS(tc.url, "tags: { use_case: 'chat' }", tc.slo)
			}
			h.stream(t, params, "")
			v, err := h.rt.VU.Runtime().RunString(`JSON.stringify(out.result.record.goodput)`)
			if err != nil {
				t.Fatal(err)
			}
			if v.String() != tc.want {
				t.Errorf("record.goodput = %s, want %s", v, tc.want)
			}
			samples := h.drain()["llm_goodput"]
			if len(samples) != len(tc.sample) {
				t.Fatalf("%d llm_goodput samples, want %d", len(samples), len(tc.sample))
			}
			for i, s := range samples {
				if s.Value != tc.sample[i] || s.Tags.Map()["use_case"] != "chat" {
					t.Errorf("sample %v tags %v, want %v with use_case=chat", s.Value, s.Tags.Map(), tc.sample[i])
				}
			}
		})
	}
}
