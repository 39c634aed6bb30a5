package agent

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestTokensReadTogether(t *testing.T) {
	for _, tc := range []struct {
		name     string
		arrivals []float64
		perChunk []int
		want     int
	}{
		{"every chunk its own read", []float64{10, 20, 30}, []int{1, 1, 1}, 0},
		{"the third read with the second", []float64{10, 20, 20}, []int{1, 1, 1}, 1},
		{"a shared read counts the later chunk's tokens", []float64{10, 20, 20}, []int{1, 1, 3}, 3},
		{"three chunks in one read", []float64{10, 10, 10}, []int{2, 1, 1}, 2},
		{"no chunk", nil, nil, 0},
	} {
		if got := tokensReadTogether(tc.arrivals, tc.perChunk); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// The server's chunking (several tokens to a chunk) and the client's reading (several chunks to a
// read) are counted apart, and agree with the ITL samples of 0 the record gives.
func TestTokenReadingApartFromServerChunks(t *testing.T) {
	rc := recorder{}
	// Chunks at 10, 20, 20 (read together), 35: the usage says 5 tokens over three one-letter chunks
	// and one of three letters, so that chunk carries 2.
	feed(&rc, []float64{10, 20, 20, 35, 36, 37},
		content("a"), content("b"), content("c"), content("def"), strings.Replace(usage, "%s", "5", 1), "[DONE]")
	r := rc.finish(streamEnd{status: 200, endMs: 40})
	together, chunked := rc.tokenReading(r.OutputTokens)
	if together != 1 || chunked != 1 {
		t.Fatalf("read together %d (want 1), chunked %d (want 1); itl %v", together, chunked, r.ITLMs)
	}
	zeros := 0
	for _, x := range r.ITLMs {
		if x == 0 {
			zeros++
		}
	}
	if zeros != together {
		t.Errorf("ITL zeros %d, read together %d: %v", zeros, together, r.ITLMs)
	}
}

// Over loopback, two events the server wrote in one write arrive in one read and are counted read
// together; events written apart are not. The answer carries both counts in its health.
func TestAnswerCountsTokensReadTogether(t *testing.T) {
	a := newAgent(t)
	ev := func(s string) string { return "data: " + content(s) + "\n\n" }
	done := "data: " + strings.Replace(usage, "%s", "5", 1) + "\n\ndata: [DONE]\n\n"
	srv := httptest.NewServer(sse(15*time.Millisecond, 0, ev("a"), ev("b")+ev("c"), ev("de"), done))
	defer srv.Close()
	got := a.stream(t, with(srv.URL, nil))
	if got.Record["outcome"] != outcomeCompleted {
		t.Fatalf("record %v", got.Record)
	}
	if got.Health["tokensReadTogether"] != float64(1) || got.Health["tokensChunked"] != float64(1) {
		t.Errorf("health %v, want 1 token read together and 1 chunked", got.Health)
	}
}
