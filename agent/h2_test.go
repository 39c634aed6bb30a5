//go:build linux

package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// h2Writes is what a test server wrote: per stream, when it began to write each event and when
// its flush of that event returned (ms since start), and from which client address and protocol
// the request came.
type h2Writes struct {
	mu      sync.Mutex
	at      map[string][]float64
	flushed map[string][]float64
	remotes map[string]string
	protos  map[string]int
}

// h2Server serves, over TLS with HTTP/2, a stream of events gap apart for each request; the
// request's "s" query names its stream, and "offset" delays its first event (ms).
func h2Server(t *testing.T, start time.Time, events int, gap time.Duration) (*httptest.Server, *h2Writes) {
	t.Helper()
	w := &h2Writes{
		at: map[string][]float64{}, flushed: map[string][]float64{}, remotes: map[string]string{}, protos: map[string]int{},
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("s")
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		w.mu.Lock()
		w.remotes[id], w.protos[id] = r.RemoteAddr, r.ProtoMajor
		w.mu.Unlock()
		rw.Header().Set("Content-Type", "text/event-stream")
		rw.WriteHeader(http.StatusOK)
		f := rw.(http.Flusher) //nolint:forcetypeassert // httptest's writer flushes
		f.Flush()
		time.Sleep(time.Duration(offset) * time.Millisecond)
		for i := range events {
			if i > 0 {
				time.Sleep(gap)
			}
			w.mu.Lock()
			w.at[id] = append(w.at[id], float64(time.Since(start))/float64(time.Millisecond))
			w.mu.Unlock()
			_, _ = fmt.Fprintf(rw, "data: {\"choices\":[{\"delta\":{\"content\":\"t%d\"}}]}\n\n", i)
			f.Flush()
			w.mu.Lock()
			w.flushed[id] = append(w.flushed[id], float64(time.Since(start))/float64(time.Millisecond))
			w.mu.Unlock()
		}
		_, _ = rw.Write([]byte("data: [DONE]\n\n"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, w
}

// Over HTTP/2, a pool's parallel requests each get a connection of their own (a lane each), so the
// kernel's per-connection receive time is each stream's own: every event is stamped at or after
// the server wrote it and before the server wrote the stream's next one.
func TestHTTP2StreamsOneConnectionEachWithTheirOwnTimes(t *testing.T) {
	t.Parallel()
	const streams, events, gap = 4, 6, 20 * time.Millisecond
	start := time.Now()
	srv, writes := h2Server(t, start, events, gap)
	ps := newPools()
	t.Cleanup(ps.closeIdle)
	got := make([][]timedEvent, streams)
	kernel := make([]bool, streams)
	var wg sync.WaitGroup
	for s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lane := ps.acquire("vu-1", true)
			defer ps.release("vu-1", true, lane)
			url := fmt.Sprintf("%s/?s=%d&offset=%d", srv.URL, s, 5*s)
			r := &request{p: &params{url: url, method: "GET", events: true}, transport: lane, base: start}
			r.ctx, r.cancel = context.WithCancelCause(context.Background())
			o := r.run()
			r.cancel(nil)
			got[s], kernel[s] = r.events, o.hasReadLag
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for s := range streams {
		id := strconv.Itoa(s)
		if writes.protos[id] != 2 {
			t.Fatalf("stream %d went over HTTP/%d, want HTTP/2", s, writes.protos[id])
		}
		if seen[writes.remotes[id]] {
			t.Errorf("stream %d shared a connection (%s) with another stream", s, writes.remotes[id])
		}
		seen[writes.remotes[id]] = true
		if !kernel[s] {
			t.Errorf("stream %d was not stamped with kernel receive times", s)
		}
		checkStampsFollowWrites(t, s, got[s], writes.at[id], writes.flushed[id])
	}
}

// checkStampsFollowWrites: every token event was stamped at or after the server began to write it,
// and before the server's flush of the next event not read with it returned. HTTP/2 frames leave
// one at a time from the server's connection goroutine, an event's frame for the socket before the
// next event's frame is written, and a flush returns once its frame is written: so the bound holds
// however late that goroutine runs. (The next event's start of writing is no bound: once a loaded
// CI sent an event 0.8 ms after the handler began the next.) A reader that falls a whole gap behind
// gets two events in one read, both stamped with the later one's arrival: the agent counts those
// tokens as read together, so a run of equal stamps is judged as one read of its last event.
func checkStampsFollowWrites(t *testing.T, stream int, events []timedEvent, wrote, flushed []float64) {
	t.Helper()
	if len(events) < len(wrote) {
		t.Fatalf("stream %d: %d events read, %d written", stream, len(events), len(wrote))
	}
	for i, at := range wrote {
		stamp := events[i].TimeMs
		if stamp < at {
			t.Errorf("stream %d event %d stamped at %.2f ms, before the server wrote it at %.2f", stream, i, stamp, at)
		}
		last := i
		for last+1 < len(wrote) && events[last+1].TimeMs == stamp {
			last++
		}
		if last+1 < len(flushed) && stamp >= flushed[last+1] {
			t.Errorf("stream %d event %d stamped at %.2f ms, at or after the flush of the next event it was not "+
				"read with (%.2f)", stream, i, stamp, flushed[last+1])
		}
	}
}
