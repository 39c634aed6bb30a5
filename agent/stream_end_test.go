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
	wroteEnd := make(chan time.Time, 1)
	time.AfterFunc(30*time.Millisecond, func() { // the terminator, 30 ms after the tokens
		wroteEnd <- time.Now()
		_, _ = server.Write([]byte("0\r\n\r\n"))
	})
	// A reader the scheduler runs late: the terminator waits about 50 ms in the socket.
	resp.Body = &lateBody{ReadCloser: resp.Body, delay: 80 * time.Millisecond}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	r := &request{p: &params{}, ctx: ctx, cancel: cancel, base: start}
	o := &outcome{}
	r.readBody(resp, &limits{cancel: cancel, base: start}, o, rc)
	readAt := time.Now()
	if o.err != "" {
		t.Fatalf("readBody failed: %s", o.err)
	}
	if o.end.Before(<-wroteEnd) || readAt.Sub(o.end) < 40*time.Millisecond {
		t.Errorf("end %v after the terminator's write and %v before the read returned; want the terminator's arrival",
			o.end.Sub(start), readAt.Sub(o.end))
	}
	rec := r.rec.finish(streamEnd{status: 200, startMs: r.stamp(start), endMs: r.stamp(o.end)})
	// Both tokens came in one read 30 ms before the end: decode time is the end minus the first token.
	if got := rec.E2EMs - rec.TTFTMs; got < 25 || got > 60 {
		t.Errorf("e2e - TTFT = %.1f ms, want about the 30 ms between the tokens and the terminator", got)
	}
}

// lateBody sleeps before every read but the first, as a reader the scheduler runs late.
type lateBody struct {
	io.ReadCloser
	delay time.Duration
	reads int
}

func (b *lateBody) Read(p []byte) (int, error) {
	if b.reads > 0 {
		time.Sleep(b.delay)
	}
	b.reads++
	return b.ReadCloser.Read(p)
}
