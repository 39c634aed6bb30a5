package agent

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestHandoffMs(t *testing.T) {
	t.Parallel()
	start := time.UnixMilli(1_700_000_000_000).Add(2500 * time.Microsecond)
	cases := []struct {
		name   string
		p      params
		wantMs float64
		wantOk bool
	}{
		{"no caller clock", params{}, 0, false},
		{"2.5 ms on its way", params{callEpochMs: 1_700_000_000_000, hasCallEpoch: true}, 2.5, true},
		{"the caller's clock a little ahead", params{callEpochMs: 1_700_000_000_003, hasCallEpoch: true}, 0, true},
		{"clocks an hour apart", params{callEpochMs: 1_700_003_600_000, hasCallEpoch: true}, 0, false},
	}
	for _, c := range cases {
		got, ok := handoffMs(&c.p, start)
		if ok != c.wantOk || got != c.wantMs {
			t.Errorf("%s: handoffMs = %v, %v; want %v, %v", c.name, got, ok, c.wantMs, c.wantOk)
		}
	}
}

// Through the API: the answer's times start at the caller's time plus the hand-off, so a record's
// start is when the request really started on the caller's clock.
func TestStreamStartsAfterTheHandoff(t *testing.T) {
	t.Parallel()
	ag := newAgent(t)
	srv := httptest.NewServer(sse(0, 0, "data: "+content("a")+"\n\n", "data: [DONE]\n\n"))
	t.Cleanup(srv.Close)
	callEpoch := float64(time.Now().Add(-40*time.Millisecond).UnixNano()) / float64(time.Millisecond)
	a := ag.stream(t, with(srv.URL, map[string]any{"timeOriginMs": 1000.0, "callEpochMs": callEpoch}))
	handoff, ok := a.Health["handoffMs"].(float64)
	if !ok || handoff < 40 || handoff > 5000 {
		t.Fatalf("handoffMs = %v, want at least the 40 ms the call was dated back", a.Health["handoffMs"])
	}
	if a.StartTime != 1000+handoff {
		t.Errorf("startTime = %v, want timeOriginMs + handoffMs = %v", a.StartTime, 1000+handoff)
	}
	if a.SentTime < a.StartTime || a.HeadersTime < a.SentTime {
		t.Errorf("start %v, sent %v, head %v: want them in that order", a.StartTime, a.SentTime, a.HeadersTime)
	}
	plain := ag.stream(t, with(srv.URL, map[string]any{"timeOriginMs": 1000.0}))
	if plain.Health["handoffMs"] != nil || plain.StartTime != 1000 {
		t.Errorf("without callEpochMs: handoffMs %v, startTime %v; want null and 1000", plain.Health["handoffMs"],
			plain.StartTime)
	}
}
