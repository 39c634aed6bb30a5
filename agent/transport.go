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

// pools hands each pool name its own connections, so a user's connection is reused by that user's
// next request, as an application's HTTP client pool would: the first request pays the connect,
// later ones do not.
//
// A pool is a set of lanes, and a lane carries one request at a time: a request takes a free lane
// (or a new one) and gives it back when its response has ended. The kernel's receive time is kept
// per connection (rxConn), so a connection must carry one stream at a time for that time to be the
// stream's own. HTTP/1.1 does that by itself; HTTP/2 would put a user's parallel requests on one
// connection as streams, and a token could take the receive time of another stream's bytes. With a
// lane per request in flight, an HTTP/2 connection carries one stream at a time, as aiohttp's and
// httpx's default HTTP/1.1 clients do (docs/design/client-clock.md).
type pools struct {
	mu sync.Mutex
	m  map[poolKey]*lanes
}

// lanes are one pool's transports: free ones wait in free, the others carry a request each.
type lanes struct {
	free []*http.Transport
	all  []*http.Transport
}

func newPools() *pools {
	return &pools{m: map[poolKey]*lanes{}}
}

// acquire returns a free lane of a pool, made when none is free; the caller gives it back with
// release once the response has ended. The lane freed last is taken first, so a user's next
// request reuses the connection its previous one used.
func (ps *pools) acquire(name string, insecure bool) *http.Transport {
	k := poolKey{name, insecure}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ls, ok := ps.m[k]
	if !ok {
		ls = &lanes{}
		ps.m[k] = ls
	}
	if n := len(ls.free); n > 0 {
		t := ls.free[n-1]
		ls.free = ls.free[:n-1]
		return t
	}
	t := stampingTransport(insecure)
	ls.all = append(ls.all, t)
	return t
}

// release gives a lane back to its pool.
func (ps *pools) release(name string, insecure bool, t *http.Transport) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ls, ok := ps.m[poolKey{name, insecure}]; ok {
		ls.free = append(ls.free, t)
	}
}

// closeIdle closes every lane's idle connections (on shutdown).
func (ps *pools) closeIdle() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, ls := range ps.m {
		for _, t := range ls.all {
			t.CloseIdleConnections()
		}
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
		MaxIdleConns:        0, // no limit: a lane holds at most its one connection per host
		MaxIdleConnsPerHost: 1,
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
