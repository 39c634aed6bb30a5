//go:build linux

package agent

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// The end of a stream is the kernel's receive time of its last bytes, like its tokens' times: a
// reader that ran late must not stretch e2e, TPOT and decode speed.
func TestStreamEndIsTheArrivalOfTheLastBytes(t *testing.T) {
	t.Parallel()
	client, server := loopbackPair(t)
	rc, ok := withRxStamps(client).(*rxConn)
	if !ok {
		t.Fatal("a loopback TCP connection was not wrapped")
	}
	waitForStamping(t, rc, server)
	body := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n"
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	start := time.Now()
	chunk := strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n"
	if _, err := server.Write([]byte(head + chunk)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(rc), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The terminator, 30 ms after the tokens; the reader is run late: only once the terminator is in the socket,
	// and 20 ms after. Both waits are on the events, not on nominal times, so a machine that runs the timer or the
	// reader later still tests the same thing (a 30 ms timer fired 12 ms late in CI, 2026-12-07).
	var beforeWrite, afterWrite time.Time
	written := make(chan struct{})
	time.AfterFunc(30*time.Millisecond, func() {
		beforeWrite = time.Now()
		_, _ = server.Write([]byte("0\r\n\r\n"))
		afterWrite = time.Now()
		close(written)
	})
	late := &lateBody{ReadCloser: resp.Body, after: written, delay: 20 * time.Millisecond}
	resp.Body = late
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	r := &request{p: &params{}, ctx: ctx, cancel: cancel, base: start}
	o := &outcome{}
	r.readBody(resp, &limits{cancel: cancel, base: start}, o, rc)
	if o.err != "" {
		t.Fatalf("readBody failed: %s", o.err)
	}
	// The terminator's arrival is within its write; a stamp of the read would be at or after the late read began.
	if o.end.Before(beforeWrite) || late.readFrom.Sub(o.end) < 10*time.Millisecond {
		t.Errorf("end %v after the terminator's write began and %v before the late read began; want its arrival",
			o.end.Sub(beforeWrite), late.readFrom.Sub(o.end))
	}
	rec := r.rec.finish(streamEnd{status: 200, startMs: r.stamp(start), endMs: r.stamp(o.end)})
	// Both tokens came in one read before the terminator: decode time is the end minus the first token, the time
	// between the tokens' write (before start) and the terminator's.
	low, high := ms(beforeWrite.Sub(start))-rec.TTFTMs-1, ms(afterWrite.Sub(start))-rec.TTFTMs+1
	if got := rec.E2EMs - rec.TTFTMs; got < low || got > high {
		t.Errorf("e2e - TTFT = %.1f ms, want within the terminator's write, %.1f-%.1f ms", got, low, high)
	}
}

// lateBody reads the first time at once and again only after the signal and a delay, as a reader the scheduler
// runs late; readFrom is when that late read began.
type lateBody struct {
	io.ReadCloser
	after    <-chan struct{}
	delay    time.Duration
	reads    int
	readFrom time.Time
}

func (b *lateBody) Read(p []byte) (int, error) {
	if b.reads == 1 {
		<-b.after
		time.Sleep(b.delay)
		b.readFrom = time.Now()
	}
	b.reads++
	return b.ReadCloser.Read(p)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
