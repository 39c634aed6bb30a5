//go:build linux && (amd64 || arm64 || ppc64 || ppc64le || riscv64 || s390x || loong64 || mips64 || mips64le)

package agent

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// cmsg is one control message as 64-bit Linux lays it out: a 16-byte header, the data, and
// padding to 8 bytes.
func cmsg(level, typ int32, data []byte) []byte {
	b := make([]byte, 16+(len(data)+7)&^7)
	binary.NativeEndian.PutUint64(b[0:8], uint64(16+len(data)))
	binary.NativeEndian.PutUint32(b[8:12], uint32(level))
	binary.NativeEndian.PutUint32(b[12:16], uint32(typ))
	copy(b[16:], data)
	return b
}

func timespec(sec, nsec int64) []byte {
	b := make([]byte, 16)
	binary.NativeEndian.PutUint64(b[0:8], uint64(sec))
	binary.NativeEndian.PutUint64(b[8:16], uint64(nsec))
	return b
}

func TestKernelStamp(t *testing.T) {
	t.Parallel()
	stamp := cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1700000000, 123456789))
	other := cmsg(syscall.SOL_IP, 8, []byte{1, 2, 3, 4, 5}) // an IP_TTL-like message first, odd length
	for name, c := range map[string]struct {
		oob  []byte
		want time.Time
		ok   bool
	}{
		"alone":                   {stamp, time.Unix(1700000000, 123456789), true},
		"after another message":   {append(append([]byte{}, other...), stamp...), time.Unix(1700000000, 123456789), true},
		"no ancillary data":       {nil, time.Time{}, false},
		"another message only":    {other, time.Time{}, false},
		"truncated stamp":         {stamp[:24], time.Time{}, false},
		"header longer than data": {stamp[:16], time.Time{}, false},
	} {
		got, ok := kernelStamp(c.oob)
		if ok != c.ok || !got.Equal(c.want) {
			t.Errorf("%s: kernelStamp = %v, %v; want %v, %v", name, got, ok, c.want, c.ok)
		}
	}
}

func TestNotBefore(t *testing.T) {
	t.Parallel()
	earlier := time.Now()
	later := earlier.Add(time.Microsecond)
	if got := notBefore(earlier, later); !got.Equal(later) {
		t.Errorf("an arrival before the previous one: %v, want the previous", got.Sub(earlier))
	}
	if got := notBefore(later, earlier); !got.Equal(later) {
		t.Errorf("an arrival after the previous one: %v, want itself", got.Sub(later))
	}
	if got := notBefore(earlier, time.Time{}); !got.Equal(earlier) {
		t.Error("the first arrival (no previous) was moved")
	}
}

func TestArrivalOnMonotonic(t *testing.T) {
	t.Parallel()
	now := time.Now()
	got := arrivalOnMonotonic(now, now.Round(0).Add(-3*time.Millisecond))
	if d := now.Sub(got); d != 3*time.Millisecond {
		t.Errorf("a stamp 3 ms old: now - arrival = %v", d)
	}
	if got.Round(0) == got {
		t.Error("the arrival lost its monotonic reading")
	}
	for name, wall := range map[string]time.Time{
		"from the future":      now.Round(0).Add(time.Second),
		"older than the bound": now.Round(0).Add(-maxRxDelay - time.Second),
	} {
		if got := arrivalOnMonotonic(now, wall); !got.Equal(now) {
			t.Errorf("%s: arrival %v, want now", name, got)
		}
	}
}

func TestEventTime(t *testing.T) {
	t.Parallel()
	start := time.Now()
	now := start.Add(50 * time.Millisecond)
	at := func(d time.Duration) *rxConn { return &rxConn{arrival: start.Add(d)} }
	for name, c := range map[string]struct {
		rx   *rxConn
		want time.Time
	}{
		"no receive times":     {nil, now},
		"none read yet":        {&rxConn{}, now},
		"inside the request":   {at(20 * time.Millisecond), start.Add(20 * time.Millisecond)},
		"before the request":   {at(-time.Millisecond), now},
		"after the read ended": {at(60 * time.Millisecond), now},
	} {
		if got, _ := eventTime(c.rx, start, now); !got.Equal(c.want) {
			t.Errorf("%s: eventTime = %v, want %v", name, got.Sub(start), c.want.Sub(start))
		}
	}
}

// loopbackPair returns a connected client TCP connection and the server's end.
func loopbackPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	t.Cleanup(func() { _ = client.Close(); _ = server.Close() })
	return client, server
}

// waitForStamping returns once the kernel stamps c's received bytes. It turns receive stamping on
// a moment after the first socket asks (a deferred static key), so it probes until a byte that
// waited 5 ms is stamped with its arrival.
func waitForStamping(t *testing.T, c *rxConn, server net.Conn) {
	t.Helper()
	buf := make([]byte, 64)
	for probe := 0; ; probe++ {
		if _, err := server.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		if time.Since(c.lastArrival()) >= 4*time.Millisecond {
			return
		}
		if probe == 200 {
			t.Fatal("the kernel never stamped a received byte")
		}
	}
}

// The point of rxConn: bytes that waited in the socket get the time they arrived, not the time
// they were read.
func TestRxConnStampsArrivalNotRead(t *testing.T) {
	t.Parallel()
	client, server := loopbackPair(t)
	c, ok := withRxStamps(client).(*rxConn)
	if !ok {
		t.Fatal("a loopback TCP connection was not wrapped")
	}
	buf := make([]byte, 64)
	waitForStamping(t, c, server)
	sent := time.Now()
	if _, err := server.Write([]byte("data: a\n\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(80 * time.Millisecond) // a reader the scheduler runs late
	n, err := c.Read(buf)
	readAt := time.Now()
	if err != nil || string(buf[:n]) != "data: a\n\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	arrival := c.lastArrival()
	if arrival.Before(sent) || readAt.Sub(arrival) < 60*time.Millisecond {
		t.Errorf("arrival %v after the write and %v before the read returned; want the write's time",
			arrival.Sub(sent), readAt.Sub(arrival))
	}

	// Deadlines hold, and the server's close is a plain EOF.
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Read past the deadline: %v", err)
	}
	_ = c.SetReadDeadline(time.Time{})
	_ = server.Close()
	if _, err := c.Read(buf); !errors.Is(err, io.EOF) {
		t.Errorf("Read after the server closed: %v, want EOF", err)
	}
}

// Over TLS the transport hands out the tls.Conn; the receive times are those of the TCP
// connection under it.
func TestArrivalSourceUnderTLS(t *testing.T) {
	t.Parallel()
	client, _ := loopbackPair(t)
	rc, ok := withRxStamps(client).(*rxConn)
	if !ok {
		t.Fatal("a loopback TCP connection was not wrapped")
	}
	if got := arrivalSource(tls.Client(rc, &tls.Config{ServerName: "localhost"})); got != rc {
		t.Errorf("arrivalSource(tls.Conn) = %p, want the rxConn under it %p", got, rc)
	}
	if got := arrivalSource(rc); got != rc {
		t.Errorf("arrivalSource(rxConn) = %p, want itself", got)
	}
	if got := arrivalSource(client); got != nil {
		t.Errorf("arrivalSource of a plain TCP connection = %p, want nil", got)
	}
}

func TestWithRxStampsLeavesOtherConnections(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	if got := withRxStamps(a); got != a {
		t.Errorf("a pipe was wrapped: %T", got)
	}
}

// A pool reuses its connection for its next request, another pool opens its own, and the
// pools' connections carry kernel receive times.
func TestPools(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	ps := newPools()
	t.Cleanup(ps.closeIdle)
	stamped := 0
	for _, pool := range []string{"vu-1", "vu-1", "vu-2", "vu-1", "vu-2"} {
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) {
				if arrivalSource(info.Conn) != nil {
					stamped++
				}
			},
		})
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		lane := ps.acquire(pool, false)
		resp, err := lane.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		ps.release(pool, false, lane)
	}
	if got := conns.Load(); got != 2 {
		t.Errorf("%d connections for 5 requests of 2 pools, want 2", got)
	}
	if stamped != 5 {
		t.Errorf("%d of 5 requests went out on a stamping connection", stamped)
	}
	if ps.acquire("vu-1", false) == ps.acquire("vu-1", true) {
		t.Error("a pool that skips TLS checks shares the transport of one that makes them")
	}
}

// A pool's requests in flight at once each have a lane of their own, and a freed lane is the next
// one taken, so a user's next request reuses its connection.
func TestPoolLanes(t *testing.T) {
	t.Parallel()
	ps := newPools()
	a, b := ps.acquire("vu-1", false), ps.acquire("vu-1", false)
	if a == b {
		t.Fatal("two requests in flight of one pool share a lane")
	}
	ps.release("vu-1", false, b)
	if got := ps.acquire("vu-1", false); got != b {
		t.Error("a freed lane was not the next one taken")
	}
	if got := ps.acquire("vu-2", false); got == a || got == b {
		t.Error("another pool took this pool's lane")
	}
}

// Whatever the kernel hands back as ancillary data, reading it never panics, and a stamp it finds
// lies inside the bytes it was given.
func FuzzKernelStamp(f *testing.F) {
	f.Add(cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1700000000, 5)))
	f.Add(append(cmsg(syscall.SOL_IP, 8, []byte{1}), cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1, 2))...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, oob []byte) {
		if _, ok := kernelStamp(oob); ok && len(oob) < 32 {
			t.Errorf("a stamp found in %d bytes, fewer than a header and a timespec", len(oob))
		}
	})
}
