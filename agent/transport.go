package agent

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"
)

// poolKey names one connection pool: the caller's pool name (one per k6 VU), and whether its TLS
// checks certificates.
type poolKey struct {
	name     string
	insecure bool
}

// pools hands each pool name its own transport, so a user's connection is reused by that user's
// next request, as an application's HTTP client pool would: the first request pays the connect,
// later ones do not.
type pools struct {
	mu sync.Mutex
	m  map[poolKey]*http.Transport
}

func newPools() *pools {
	return &pools{m: map[poolKey]*http.Transport{}}
}

// get returns the transport of a pool, made on first use.
func (ps *pools) get(name string, insecure bool) *http.Transport {
	k := poolKey{name, insecure}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	t, ok := ps.m[k]
	if !ok {
		t = stampingTransport(insecure)
		ps.m[k] = t
	}
	return t
}

// closeIdle closes every pool's idle connections (on shutdown).
func (ps *pools) closeIdle() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, t := range ps.m {
		t.CloseIdleConnections()
	}
}

// stampingTransport is an HTTP transport whose TCP connections carry kernel receive times. The
// connect limit is the request's own (timeouts.go), so the dialer has none; HTTP/2 is used where
// TLS offers it, as k6/http does.
func stampingTransport(insecure bool) *http.Transport {
	dialer := &net.Dialer{KeepAlive: 30 * time.Second}
	t := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return withRxStamps(c), nil
		},
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        0, // no limit: a pool holds at most its one user's connections
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		// A compressed stream would hide the arrival of each token behind the decompressor.
		DisableCompression: true,
	}
	if insecure {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the caller asked for it
	}
	return t
}

// arrivalSource is the rxConn under a connection the transport handed out (plain or TLS), or nil.
func arrivalSource(c net.Conn) *rxConn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	rc, _ := c.(*rxConn)
	return rc
}

// eventTime is the time to stamp the events of a read that returned at now: the kernel's
// receive time of the latest bytes the connection read, when there is one inside the request
// (never before it started, never after now), else now. kernel says which.
func eventTime(rx *rxConn, start, now time.Time) (at time.Time, kernel bool) {
	if rx == nil {
		return now, false
	}
	at = rx.lastArrival()
	if at.IsZero() || at.After(now) || at.Before(start) {
		return now, false
	}
	return at, true
}
