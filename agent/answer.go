package agent

import "encoding/json"

// Answer is what the agent answers a stream request with (docs/reference/agent-api.md, "The answer"): the record
// and how the response went.
type Answer struct {
	Record Record `json:"record"`
	// Status is the HTTP status; 0 when no response head arrived.
	Status int `json:"status"`
	// Headers are the response's, names lower-cased, values joined with ", ".
	Headers map[string]string `json:"headers"`
	// Error and ErrorCode are the transport's message and code (timeouts.go); "" when none.
	Error     string `json:"error"`
	ErrorCode string `json:"errorCode"`
	// Body is the first 4 KiB of a non-2xx or non-event-stream body, else "".
	Body string `json:"body"`
	// StartTime, SentTime, HeadersTime and EndTime are ms on the caller's scale (params.timeOriginMs,
	// plus Health.HandoffMs when known); SentTime (the request written whole) is 0 when it was not,
	// HeadersTime 0 without a response head.
	StartTime        float64 `json:"startTime"`
	SentTime         float64 `json:"sentTime"`
	HeadersTime      float64 `json:"headersTime"`
	EndTime          float64 `json:"endTime"`
	InvalidLines     int     `json:"invalidLines"`
	FirstInvalidLine string  `json:"firstInvalidLine"`
	// Text is the generated content, with params.keepText; absent otherwise.
	Text *string `json:"text,omitempty"`
	// Events are every event with its receive time, with params.events; absent otherwise.
	Events []timedEvent `json:"events,omitempty"`
	Health Health       `json:"health"`
}

// Health is what the agent knew of itself when the request ended: the load generator's own
// figures, so that a report can tell a busy client from a slow server.
type Health struct {
	// HandoffMs is how long the call took to reach the request's start (handoff.go); null when the
	// caller sent no wall clock (params.callEpochMs).
	HandoffMs optional `json:"handoffMs"`
	// ReadLagMs is the longest the request's bytes waited in the socket before the agent read them;
	// null without kernel receive times.
	ReadLagMs optional `json:"readLagMs"`
	// StallMs is the longest the machine did not run the agent while the request ran, though the agent was not
	// waiting for a core (stall.go): a paused VM, a stopped process; 0 below 2 ms; null when the meter is not running.
	StallMs optional `json:"stallMs"`
	// CPUPerCore is the agent's CPU time so far (user + system) over the cores it may use, in s.
	CPUPerCore optional `json:"cpuPerCore"`
	// TokensReadTogether counts the tokens of a completed request whose chunk was read with the
	// chunk before it (read_together.go): they share its time, an ITL of 0 the server did not send.
	TokensReadTogether int `json:"tokensReadTogether"`
	// TokensChunked counts the tokens of a completed request that the server sent in a chunk with
	// another token: output tokens minus token-bearing chunks.
	TokensChunked int `json:"tokensChunked"`
}

// MarshalJSON writes an optional figure as a number or null.
func (o optional) MarshalJSON() ([]byte, error) {
	return json.Marshal(o.any())
}
