package agent

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"
)

// userAgent is sent when the caller's headers name none.
const userAgent = "k6-llm-capacity-agent/1"

// readBuffers recycles the 32 KiB read buffers of all requests.
var readBuffers = sync.Pool{New: func() any {
	b := make([]byte, readBufferBytes)
	return &b
}}

// request is one stream request on its way: the reader fills rec and events, and the answer is
// built from them once the response has ended. Nothing in it is shared with another request.
type request struct {
	p         *params
	transport http.RoundTripper
	// secrets are the request's credentials, redacted from the record's message.
	secrets []string
	rec     recorder
	events  []timedEvent

	ctx    context.Context
	cancel context.CancelCauseFunc
	// base is the request start on the monotonic clock; it is origin on the caller's scale.
	base time.Time
	// origin is base on the caller's scale: p.timeOriginMs, plus the hand-off when the caller gave
	// its wall clock (handoff.go), so that the record's start is when the request really started.
	origin float64
	// handoff is the hand-off in ms, hasHandoff whether it is known.
	handoff    float64
	hasHandoff bool
}

// timedEvent is one event of the stream with the receive time of the bytes that completed it.
type timedEvent struct {
	TimeMs float64 `json:"time"`
	Name   string  `json:"name"`
	Data   string  `json:"data"`
}

// stamp converts a monotonic time to ms on the caller's scale.
func (r *request) stamp(t time.Time) float64 {
	return r.origin + float64(t.Sub(r.base))/float64(time.Millisecond)
}

// runStream performs one stream request and answers with what it measured. ctx ends when the
// caller goes away: the upstream request is cancelled with it, so the server stops generating.
func runStream(ctx context.Context, p *params, transport http.RoundTripper) *Answer {
	r := &request{
		p:         p,
		transport: transport,
		secrets:   secretsOf(p.headers),
		rec:       recorder{requestedInput: p.requestedInput, requestedOutput: p.requestedOutput, keepText: p.keepText},
		base:      time.Now(),
	}
	r.handoff, r.hasHandoff = handoffMs(p, r.base)
	r.origin = p.timeOriginMs + r.handoff
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	o := r.run()
	r.cancel(nil) // release the context's resources; the outcome is already classified
	return r.answer(o)
}

// record builds the request's record from what the recorder saw and how the response ended.
func (r *request) record(o *outcome) Record {
	rec := r.rec.finish(streamEnd{
		status:       o.status,
		transportErr: o.err,
		code:         o.code,
		body:         string(o.body),
		firstInvalid: o.firstInvalid,
		startMs:      r.stamp(r.base),
		endMs:        r.stamp(o.end),
	})
	if rec.Outcome == outcomeErrored {
		rec.ErrorMessage = messageForResults(rec.ErrorMessage, r.secrets, errorMessageMax)
	}
	if r.p.hasSLO {
		good := judgeGoodput(&rec, r.p.slo)
		rec.Goodput = &good
	}
	return rec
}

// answer builds the answer to the caller.
func (r *request) answer(o *outcome) *Answer {
	headers := make(map[string]string, len(o.headers))
	for k, v := range o.headers {
		headers[strings.ToLower(k)] = redacted(strings.Join(v, ", "), r.secrets)
	}
	rec := r.record(o)
	stalled, metered := meter.longest(r.base, o.end)
	a := &Answer{
		Record:           rec,
		Status:           o.status,
		Headers:          headers,
		Error:            messageForResults(o.err, r.secrets, maxBodyBytes),
		ErrorCode:        o.code,
		Body:             redacted(string(o.body), r.secrets),
		StartTime:        r.stamp(r.base),
		EndTime:          r.stamp(o.end),
		InvalidLines:     o.invalidLines,
		FirstInvalidLine: redacted(o.firstInvalid, r.secrets),
		Health: Health{
			HandoffMs:  some(r.handoff, r.hasHandoff),
			ReadLagMs:  some(float64(o.readLag)/float64(time.Millisecond), o.hasReadLag),
			StallMs:    some(float64(stalled)/float64(time.Millisecond), metered),
			CPUPerCore: some(processCPUPerCore()),
		},
	}
	if !o.sentAt.IsZero() {
		a.SentTime = r.stamp(o.sentAt)
	}
	if rec.Outcome == outcomeCompleted {
		a.Health.TokensReadTogether, a.Health.TokensChunked = r.rec.tokenReading(rec.OutputTokens)
	}
	if !o.headersAt.IsZero() {
		a.HeadersTime = r.stamp(o.headersAt)
	}
	if r.p.keepText {
		text := redacted(r.rec.text.String(), r.secrets)
		a.Text = &text
	}
	if r.p.events {
		for i := range r.events {
			r.events[i].Data = redacted(r.events[i].Data, r.secrets)
		}
		a.Events = r.events
		if a.Events == nil {
			a.Events = []timedEvent{}
		}
	}
	return a
}
