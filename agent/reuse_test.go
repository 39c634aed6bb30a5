package agent

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// closingServer answers the first request of each connection with a chunked event stream that
// announces keep-alive, then closes the connection when the next request on it arrives, without
// answering: what llama-server does after a streamed response (the client sees EOF on the reused
// connection). It answers 400 to a request carrying the X-Idempotency-Key header, which the client
// must not send. It reports how many connections it accepted.
func closingServer(t *testing.T) (url string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	conns = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func(c net.Conn) {
				defer c.Close() //nolint:errcheck // the point is to close
				br := bufio.NewReader(c)
				for served := 0; ; served++ {
					req, err := http.ReadRequest(br)
					if err != nil || served > 0 {
						return
					}
					_ = req.Body.Close()
					if _, sent := req.Header["X-Idempotency-Key"]; sent {
						_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
						return
					}
					body := "data: {\"choices\":[]}\n\ndata: [DONE]\n\n"
					_, _ = fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"+
						"Keep-Alive: timeout=5, max=100\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
				}
			}(c)
		}
	}()
	return "http://" + ln.Addr().String() + "/v1/chat/completions", conns
}

// A server that closes a kept-alive connection as the next request arrives never got that request:
// it is sent again on a new connection, as Go does for idempotent requests, instead of failing
// with EOF (seen with llama-server, which closes after each streamed response).
func TestStreamRetriesARequestTheServerClosedItsConnectionOn(t *testing.T) {
	t.Parallel()
	url, conns := closingServer(t)
	ag := newAgent(t)
	for i := 0; i < 3; i++ {
		a := ag.stream(t, map[string]any{"url": url, "method": "POST", "body": "{}", "pool": "vu-1"})
		if a.Status != 200 || a.Error != "" {
			t.Fatalf("request %d: %+v", i, a)
		}
	}
	if n := conns.Load(); n < 3 {
		t.Errorf("%d connections for 3 requests: the closed one was not replaced", n)
	}
}

// The same with a large body: the server's close lands while the request is being written, which Go
// does not resend by itself (part of it was written); the agent does, once.
func TestStreamResendsALargeRequestCutByTheClose(t *testing.T) {
	t.Parallel()
	url, conns := closingServer(t)
	ag := newAgent(t)
	body := strings.Repeat("x", 4<<20)
	for i := 0; i < 3; i++ {
		a := ag.stream(t, map[string]any{"url": url, "method": "POST", "body": body, "pool": "vu-1"})
		if a.Status != 200 || a.Error != "" {
			t.Fatalf("request %d: %+v", i, a)
		}
	}
	if n := conns.Load(); n < 3 {
		t.Errorf("%d connections for 3 requests", n)
	}
}
