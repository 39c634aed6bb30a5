package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A meter fed wakes by hand: a late wake is a stall from when it was due; the longest within a window is clipped to it.
func TestStallMeterLongestWithin(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var m stallMeter
	if _, ok := m.longest(at(0), at(10)); ok {
		t.Fatal("a meter that never woke says nothing")
	}
	m.woke(at(0), 0)
	m.woke(at(5), stallTick)   // on time
	m.woke(at(11), stallTick)  // 1 ms late: the scheduler's ordinary delay, not kept
	m.woke(at(116), stallTick) // due at 16: a 100 ms stall
	m.woke(at(121), stallTick)
	// Late by 40 ms, all of it waited in the run queue by the meter's thread: a busy core, not a stall.
	m.woke(at(166), stallTick+40*time.Millisecond)
	m.woke(at(471), stallTick) // due at 171: 300 ms
	m.woke(at(476), stallTick)
	cases := []struct {
		from, to int
		want     int
	}{
		{0, 15, 0},
		{0, 121, 100},
		{50, 121, 66},   // the stall's part within the request
		{10, 30, 14},    // a request that ended inside the stall
		{121, 170, 0},   // the run-queue wait is left out
		{100, 476, 300}, // the longest of two
		{400, 476, 71},
	}
	for _, c := range cases {
		got, ok := m.longest(at(c.from), at(c.to))
		if !ok || got != time.Duration(c.want)*time.Millisecond {
			t.Errorf("longest(%d, %d) = %v, %v; want %d ms", c.from, c.to, got, ok, c.want)
		}
	}
	// A stall the meter has not woken from yet counts up to the request's end.
	if got, _ := m.longest(at(470), at(600)); got != 119*time.Millisecond {
		t.Errorf("stall in progress: %v, want 119ms", got)
	}
}

// Past stallKeep stalls the oldest are dropped, and the newest still found.
func TestStallMeterRing(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var m stallMeter
	m.woke(t0, 0)
	now := t0
	for i := 0; i < stallKeep+10; i++ {
		now = now.Add(stallTick + time.Duration(3+i%2)*time.Millisecond)
		m.woke(now, stallTick)
	}
	if m.stalls != stallKeep+10 {
		t.Fatalf("stalls %d", m.stalls)
	}
	got, _ := m.longest(t0, now)
	if got != 4*time.Millisecond {
		t.Errorf("longest over the ring %v, want 4ms", got)
	}
}

// The started meter wakes on its own: its last wake moves on while the test sleeps.
func TestStallMeterRuns(t *testing.T) {
	startStallMeter()
	meter.mu.Lock()
	first := meter.last
	meter.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(stallTick)
		meter.mu.Lock()
		moved := meter.last.After(first)
		meter.mu.Unlock()
		if moved {
			if _, ok := meter.longest(first, time.Now()); !ok {
				t.Fatal("the started meter says nothing")
			}
			return
		}
	}
	t.Fatal("the meter did not wake in 5 s")
}

// GET /stalls answers the longest stall within a wall-clock window, and refuses a window it cannot read.
func TestStallsEndpoint(t *testing.T) {
	ag := newAgent(t)
	get := func(query string) (int, map[string]any) {
		res, err := http.Get(ag.url + "/stalls" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body
	}
	now := time.Now().UnixMilli()
	status, body := get(fmt.Sprintf("?fromEpochMs=%d&toEpochMs=%d", now-1000, now))
	if longest, ok := body["longestMs"].(float64); status != http.StatusOK || !ok || longest < 0 {
		t.Errorf("GET /stalls: %d %v", status, body)
	}
	for _, q := range []string{"", "?fromEpochMs=1", "?fromEpochMs=x&toEpochMs=2"} {
		if status, body := get(q); status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(body), "EpochMs must") {
			t.Errorf("GET /stalls%s: %d %v", q, status, body)
		}
	}
}
