package agent

import "strconv"

// Error kinds of a record: the error_kind tag of llm_errors. Each kind's meaning for readers is in
// lib/record.ts's ERROR_KINDS; the agent's GET / answers this list, and a test holds the two equal.
const (
	kindConnection     = "connection"      // no HTTP response at all (refused, reset before the head, DNS, TLS)
	kindTimeout        = "timeout"         // the whole-request timeout fired
	kindConnectTimeout = "connect_timeout" // no connection within connectTimeout
	kindTTFBTimeout    = "ttfb_timeout"    // no response head within headerTimeout
	kindStalled        = "stalled"         // no byte for idleTimeout while the stream was open
	kindHTTP429        = "http_429"        // the server refused for load
	kindHTTP4xx        = "http_4xx"        // any other client error status
	kindHTTP5xx        = "http_5xx"        // server error status
	kindHTTPOther      = "http_other"      // neither 2xx nor an error class (1xx, 3xx)
	kindServerError    = "server_error"    // an error object or `event: error` in a 200 stream, a 200 JSON error body
	kindMalformedChunk = "malformed_chunk" // a data line that is not JSON, or a line too long
	kindTruncated      = "truncated"       // the stream ended with neither finish_reason nor [DONE]
	kindNoTokens       = "no_tokens"       // the stream completed without a generated token
	kindStreamError    = "stream_error"    // the connection failed mid-stream (reset, read error, cancelled)
)

// errorKinds lists every kind above, in lib/record.ts's order.
var errorKinds = []string{
	kindConnection, kindTimeout, kindConnectTimeout, kindTTFBTimeout, kindStalled, kindHTTP429,
	kindHTTP4xx, kindHTTP5xx, kindHTTPOther, kindServerError, kindMalformedChunk, kindTruncated,
	kindNoTokens, kindStreamError,
}

// errorMessageMax is the most characters of an error message a record keeps (lib/record.ts
// ERROR_MESSAGE_MAX, held equal the same way).
const errorMessageMax = 200

// kindOfTransportCode is the error kind for how the transport ended a request, when that alone
// decides it; "" for a normal end.
func kindOfTransportCode(code string) string {
	switch code {
	case codeConnect, codeInvalid:
		return kindConnection
	case codeConnectTimeout:
		return kindConnectTimeout
	case codeHeaderTimeout:
		return kindTTFBTimeout
	case codeIdleTimeout:
		return kindStalled
	case codeTimeout:
		return kindTimeout
	case codeLineTooLong:
		return kindMalformedChunk
	case codeReset, codeRead, codeCancelled:
		return kindStreamError
	}
	return ""
}

// kindOfStatus is the error kind an HTTP status alone decides; "" for 2xx.
func kindOfStatus(status int) string {
	switch {
	case status == 0:
		return kindConnection
	case status == 429:
		return kindHTTP429
	case status >= 400 && status < 500:
		return kindHTTP4xx
	case status >= 500:
		return kindHTTP5xx
	case status < 200 || status >= 300:
		return kindHTTPOther
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
