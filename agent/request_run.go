package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	// readBufferBytes is the size of the one read buffer a request uses, whatever the output length.
	readBufferBytes = 32 << 10
	// maxBodyBytes is how much of a non-2xx or non-event-stream body the result keeps.
	maxBodyBytes = 4 << 10
)

// outcome is what the request goroutine hands to the JS thread once the response has ended.
type outcome struct {
	status    int
	headers   http.Header
	err       string
	code      string
	body      []byte
	headersAt time.Time // zero without a response head
	sentAt    time.Time // when the request was written whole; zero when it was not
	// end is when the body ended: the kernel's receive time of its last bytes (the chunked
	// terminator, the last DATA frame) when the connection has them, else the read's own time.
	end          time.Time
	invalidLines int
	firstInvalid string
	cleanURL     string
	// readLag is the longest a read's bytes waited in the socket (read time - kernel receive
	// time); hasReadLag is false without kernel receive times.
	readLag    time.Duration
	hasReadLag bool
}

// phaseTrace records the httptrace hooks of one request; they run on the transport's goroutines.
type phaseTrace struct {
	mu           sync.Mutex
	connectStart time.Time
	connectDone  time.Time
	reused       bool
	wrote        time.Time
	firstByte    time.Time
	rx           *rxConn // the connection's receive times, when it has them
}

func (pt *phaseTrace) clientTrace(l *limits) *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		ConnectStart: func(string, string) {
			pt.mu.Lock()
			if pt.connectStart.IsZero() {
				pt.connectStart = time.Now()
			}
			pt.mu.Unlock()
		},
		ConnectDone: func(_, _ string, err error) {
			if err != nil {
				return
			}
			pt.mu.Lock()
			pt.connectDone = time.Now()
			pt.mu.Unlock()
		},
		GotConn: func(info httptrace.GotConnInfo) {
			pt.mu.Lock()
			pt.reused = info.Reused
			pt.rx = arrivalSource(info.Conn)
			pt.mu.Unlock()
			l.enter(phaseWrite)
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			pt.mu.Lock()
			pt.wrote = time.Now()
			pt.mu.Unlock()
			if info.Err == nil {
				l.enter(phaseHead)
			}
		},
		GotFirstResponseByte: func() {
			pt.mu.Lock()
			pt.firstByte = time.Now()
			pt.mu.Unlock()
		},
	}
}

// lostReusedConn reports whether the request went out on a kept-alive connection and no byte of a
// response came back.
func (pt *phaseTrace) lostReusedConn() bool {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return pt.reused && pt.firstByte.IsZero()
}

// run performs the request: it returns once the response has ended and every event has been
// interpreted.
func (r *request) run() *outcome {
	o := &outcome{cleanURL: r.p.url}
	l := &limits{
		cancel:  r.cancel,
		base:    r.base,
		connect: r.p.connectTimeout,
		header:  r.p.headerTimeout,
		idle:    r.p.idleTimeout,
	}
	pt := &phaseTrace{}
	r.do(o, l, pt)
	if o.end.IsZero() {
		o.end = time.Now() // the request failed before its body ended
	}
	l.stop()
	return o
}

// do sends the request and reads the response into o.
func (r *request) do(o *outcome, l *limits, pt *phaseTrace) {
	req, err := r.newRequest()
	if err != nil {
		o.code, o.err = codeInvalid, err.Error()
		return
	}
	o.cleanURL = cleanURL(req.URL, r.p.url)
	if r.p.timeout > 0 {
		whole := time.AfterFunc(r.p.timeout, func() {
			r.cancel(&endError{code: codeTimeout, msg: fmt.Sprintf("request timeout after %s (timeout)", r.p.timeout)})
		})
		defer whole.Stop()
	}
	req = req.WithContext(httptrace.WithClientTrace(r.ctx, pt.clientTrace(l)))
	l.start()

	client := &http.Client{
		Transport: r.transport,
		// As a load test measures one response per request, redirects are not followed: a 3xx
		// resolves with its status and body.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req) //nolint:bodyclose // closed in readBody
	if err != nil && r.ctx.Err() == nil && pt.lostReusedConn() {
		// The server closed a kept-alive connection as this request went out on it (llama-server
		// does after every streamed response): an EOF, a reset or a write into the closed connection,
		// with no byte of a response. Go resends only idempotent requests, and a POST it wrote part of
		// never; a client would try again, so the request is sent once more, on a new connection, its
		// start time kept.
		if again, rerr := r.newRequest(); rerr == nil {
			resp, err = client.Do(again.WithContext(req.Context())) //nolint:bodyclose // closed in readBody
		}
	}
	if err != nil {
		o.code, o.err = r.classify(err, codeConnect)
		return
	}
	pt.mu.Lock()
	rx := pt.rx
	o.sentAt = pt.wrote
	pt.mu.Unlock()
	// The head's receive time, like the events': the first event often arrives with it.
	o.headersAt, _ = eventTime(rx, r.base, time.Now())
	o.status = resp.StatusCode
	o.headers = resp.Header
	l.enter(phaseBody)
	r.readBody(resp, l, o, rx)
}

// readBody reads the body to its end with one fixed buffer: events are parsed and pushed as
// they complete, stamped with the receive time of the read that completed them (rx's kernel
// time when the connection has one); any other body keeps its first 4 KiB and the rest is read
// and discarded, so the connection can be reused.
func (r *request) readBody(resp *http.Response, l *limits, o *outcome, rx *rxConn) {
	defer func() { _ = resp.Body.Close() }()
	bufp := readBuffers.Get().(*[]byte) //nolint:forcetypeassert // the pool only holds these
	defer readBuffers.Put(bufp)
	buf := *bufp

	isEvents := resp.StatusCode >= 200 && resp.StatusCode <= 299 && isEventStream(resp.Header.Get("Content-Type"))
	var parser *Parser
	var stamp float64
	emit := func(name string, data []byte) {
		r.rec.event(name, data, stamp)
		if r.p.events {
			r.events = append(r.events, timedEvent{TimeMs: stamp, Name: name, Data: string(data)})
		}
	}
	if isEvents {
		parser = NewParser(MaxLineBytes)
		defer func() { o.invalidLines, o.firstInvalid = parser.InvalidLines, parser.FirstInvalidLine }()
	}
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			now := time.Now()
			l.touch(now)
			if isEvents {
				at, kernel := eventTime(rx, r.base, now)
				if kernel {
					// How long the bytes waited in the socket: the reader's own delay.
					o.readLag = max(o.readLag, now.Sub(at))
					o.hasReadLag = true
				}
				stamp = r.stamp(at)
				if perr := parser.FeedRaw(buf[:n], emit); perr != nil {
					msg := fmt.Sprintf("an event-stream line is longer than %d bytes", MaxLineBytes)
					r.cancel(&endError{code: codeLineTooLong, msg: msg})
					o.code, o.err = codeLineTooLong, msg
					return
				}
			} else if room := maxBodyBytes - len(o.body); room > 0 {
				o.body = append(o.body, buf[:min(n, room)]...)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				// On the tokens' clock: e2e, TPOT and decode speed subtract the first token's
				// kernel time from it, so a reader that ran late must not stretch them.
				o.end, _ = eventTime(rx, r.base, time.Now())
				return
			}
			o.code, o.err = r.classify(err, codeRead)
			return
		}
	}
}

// classify names why the request failed: the limit or cancellation that ended its context, else
// a reset, else fallback (connect before the head, read after it).
func (r *request) classify(err error, fallback string) (code, msg string) {
	if r.ctx.Err() != nil {
		var ee *endError
		if errors.As(context.Cause(r.ctx), &ee) {
			return ee.code, ee.msg
		}
		return codeCancelled, err.Error()
	}
	if fallback == codeRead && isReset(err) {
		return codeReset, err.Error()
	}
	return fallback, err.Error()
}

// isReset reports a connection reset or closed in the middle of the body. A plain EOF at the end
// of a body is not an error and never gets here.
func isReset(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		// HTTP/2 reports a reset stream as an unexported StreamError.
		strings.Contains(err.Error(), "stream error")
}

// newRequest builds the HTTP request; an error is an invalid_request.
func (r *request) newRequest() (*http.Request, error) {
	p := r.p
	u, err := url.Parse(p.url)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", p.method, p.url, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s %q: unsupported protocol scheme %q", p.method, p.url, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s %q: no host in the URL", p.method, p.url)
	}
	method := strings.ToUpper(p.method)
	if method == "" {
		return nil, fmt.Errorf("%s %q: empty method", p.method, p.url)
	}
	var body io.Reader
	if p.body != nil {
		body = strings.NewReader(*p.body)
	}
	req, err := http.NewRequestWithContext(r.ctx, method, p.url, body)
	if err != nil {
		return nil, err
	}
	hasUA := false
	for _, kv := range p.headers {
		switch strings.ToLower(kv[0]) {
		case "content-length":
			continue // set from the body
		case "host":
			req.Host = kv[1]
			continue
		case "user-agent":
			hasUA = true
		}
		req.Header.Add(kv[0], kv[1])
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "text/event-stream")
	}
	if !hasUA {
		req.Header.Set("User-Agent", userAgent)
	}
	return req, nil
}

// isEventStream reports whether a Content-Type is text/event-stream (parameters ignored).
func isEventStream(contentType string) bool {
	mediaType, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mediaType), "text/event-stream")
}

// cleanURL is the URL for the url and name tags, with any credentials masked as k6/http does.
func cleanURL(u *url.URL, raw string) string {
	if u.User == nil {
		return raw
	}
	c := *u
	if _, ok := u.User.Password(); ok {
		c.User = url.UserPassword("****", "****")
	} else {
		c.User = url.User("****")
	}
	return c.String()
}
