package llm

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"

	"go.k6.io/k6/lib"
	"go.k6.io/k6/lib/netext"
)

// vuTransport is the HTTP transport of one VU's streams: a copy of k6's (same TLS settings,
// proxy, connection limits and dialer, so the same DNS, blacklist and byte counters) whose TCP
// connections carry kernel receive times. It keeps its own idle connections, so it honours
// noVUConnectionReuse itself.
type vuTransport struct {
	base          *http.Transport
	copy          *http.Transport
	lastIteration int64
}

// roundTripper returns the transport for a stream of the VU's current iteration. A transport
// that is not an *http.Transport (nothing in k6 makes one) is used as it is.
func (vt *vuTransport) roundTripper(state *lib.State) http.RoundTripper {
	base, ok := state.Transport.(*http.Transport)
	if !ok || base.DialContext == nil {
		return state.Transport
	}
	if vt.copy == nil || vt.base != base {
		vt.base, vt.copy = base, stampingCopy(base)
	}
	if state.Options.NoVUConnectionReuse.Bool && state.Iteration != vt.lastIteration {
		// k6 closes its own transport's idle connections when an iteration ends.
		vt.copy.CloseIdleConnections()
	}
	vt.lastIteration = state.Iteration
	return vt.copy
}

// stampingCopy clones base with a dialer that wraps k6's connections in rxConn.
func stampingCopy(base *http.Transport) *http.Transport {
	t := base.Clone()
	dial := base.DialContext
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if kc, ok := c.(*netext.Conn); ok {
			return withRxStamps(c, kc.Conn, kc.BytesRead), nil
		}
		return withRxStamps(c, c, nil), nil
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
