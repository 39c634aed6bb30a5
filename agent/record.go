package agent

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Outcomes and token sources of a record (the TypeScript RequestRecord in lib/record.ts).
const (
	outcomeCompleted = "completed"
	outcomeErrored   = "errored"
	sourceUsage      = "usage"
	sourceChunks     = "chunks"
	sourceRequested  = "requested"
)

// Record is what one streaming request measured: the figures of a completed request, or why it
// failed. Field by field it is lib/record.ts's RequestRecord; fields() gives its JSON and JS shape.
type Record struct {
	Outcome               string
	Status                int
	StartMs, EndMs        float64
	RequestedInputTokens  int
	RequestedOutputTokens int
	// Events counts every event, the role-only, usage and [DONE] ones included.
	Events int
	// Goodput is whether the request met every limit of params.slo (slo.go); nil without one.
	Goodput *bool

	// Completed only.
	InputTokens      int
	InputTokenSource string // usage or requested
	// CachedTokens is usage.prompt_tokens_details.cached_tokens: prompt tokens the server's prefix
	// cache served; absent when the usage had no such field (vLLM leaves it out when it is 0).
	CachedTokens optional
	OutputTokens int
	// ReasoningTokens is the usage's reasoning figure, else the output tokens spread over reasoning
	// chunks; absent when the usage has none and no reasoning arrived.
	ReasoningTokens   optional
	OutputTokenSource string // usage or chunks
	TTFTMs            float64
	TTFCMs            optional // time to the first content token; absent when none arrived
	E2EMs             float64
	ITLMs             []float64 // one per token after the first
	TPOTMs            optional
	DecodeSpeed       optional // tokens/s
	PrefillSpeed      optional // tokens/s
	FinishReason      string   // "" when none
	SawDone           bool

	// Errored only.
	ErrorKind    string
	ErrorMessage string // redacted, whitespace collapsed, at most errorMessageMax characters
	// OutputTokensSeen counts the tokens that arrived before the failure.
	OutputTokensSeen int
}

// optional is a figure that can be undefined (null in JSON and JavaScript).
type optional struct {
	value float64
	ok    bool
}

func some(v float64, ok bool) optional { return optional{v, ok} }

func (o optional) any() any {
	if !o.ok {
		return nil
	}
	return o.value
}

func (r *Record) goodputValue() any {
	if r.Goodput == nil {
		return nil
	}
	return *r.Goodput
}

// field is one named value of a record as JSON and JavaScript see it.
type field struct {
	name  string
	value any
}

// fields lists the record's fields in lib/record.ts's shape: the common ones, then the outcome's.
func (r *Record) fields() []field {
	f := []field{
		{"outcome", r.Outcome},
		{"status", r.Status},
		{"startMs", r.StartMs},
		{"endMs", r.EndMs},
		{"requestedInputTokens", r.RequestedInputTokens},
		{"requestedOutputTokens", r.RequestedOutputTokens},
		{"events", r.Events},
		{"goodput", r.goodputValue()},
	}
	if r.Outcome == outcomeErrored {
		return append(f,
			field{"errorKind", r.ErrorKind},
			field{"errorMessage", r.ErrorMessage},
			field{"outputTokensSeen", r.OutputTokensSeen})
	}
	var finish any
	if r.FinishReason != "" {
		finish = r.FinishReason
	}
	return append(f,
		field{"inputTokens", r.InputTokens},
		field{"inputTokenSource", r.InputTokenSource},
		field{"cachedTokens", r.CachedTokens.any()},
		field{"outputTokens", r.OutputTokens},
		field{"reasoningTokens", r.ReasoningTokens.any()},
		field{"outputTokenSource", r.OutputTokenSource},
		field{"ttftMs", r.TTFTMs},
		field{"ttfcMs", r.TTFCMs.any()},
		field{"e2eMs", r.E2EMs},
		field{"itlMs", r.ITLMs},
		field{"tpotMs", r.TPOTMs.any()},
		field{"decodeTokensPerSecond", r.DecodeSpeed.any()},
		field{"prefillTokensPerSecond", r.PrefillSpeed.any()},
		field{"finishReason", finish},
		field{"sawDone", r.SawDone})
}

// MarshalJSON writes the record in lib/record.ts's shape, its fields in fields()'s order.
func (r Record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r.fields() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(f.name)
		b.WriteString(`":`)
		if err := writeJSONValue(&b, f.value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeJSONValue appends v's JSON without a newline and, unlike json.Marshal, without escaping
// <, > and &: a message reads as the server wrote it.
func writeJSONValue(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode ends with a newline
	return nil
}

// streamEnd is how the response ended, as the transport saw it.
type streamEnd struct {
	status       int
	transportErr string // "" when the response ended normally
	code         string // the transport's error code (timeouts.go), "" when none
	body         string // first bytes of a non-2xx or non-event-stream body
	firstInvalid string // first line of the event stream that is not SSE
	startMs      float64
	endMs        float64
}

type tokenChunk struct {
	atMs       float64
	chars      int
	hasContent bool
	// reasoning: most of the chunk's text is reasoning, so its share of the tokens counts as such.
	reasoning bool
}

// recorder interprets the events of one stream as they are read. It runs on the reader goroutine
// and is read once the response has ended; it does no I/O.
type recorder struct {
	requestedInput  int
	requestedOutput int

	events        int
	chunks        []tokenChunk
	finishReason  string
	promptTokens  int
	hasPrompt     bool
	completion    int
	hasCompletion bool
	cached        int
	hasCached     bool
	sawDone       bool
	// The Responses and Messages APIs (chunk_typed.go).
	reasoningUsage    int
	hasReasoningUsage bool
	cacheCreation     int
	messagesUsage     bool // the prompt count excludes cache reads and writes
	typed             bool // a Responses or Messages stream: it ends with a terminal event, not [DONE]
	sawEnd            bool // its terminal event came
	functionCall      bool // a Responses stream showed a function call (chunk.go)
	// keepText: gather the generated content into text (params.keepText), for a conversation's
	// next turn; off by default, as most requests never need it.
	keepText bool
	text     strings.Builder
	// arrivals and perChunk are each token chunk's time and tokens, kept by complete for tokenReading.
	arrivals   []float64
	perChunk   []int
	errKind    string // the first error seen in the stream, "" when none
	errMessage string
}

func (rc *recorder) noteError(kind, message string) {
	if rc.errKind == "" {
		rc.errKind, rc.errMessage = kind, message
	}
}

// event interprets one event that arrived at atMs: a typed decode serves the chunks servers send
// (chunk_wire.go), a generic one anything else.
func (rc *recorder) event(name string, data []byte, atMs float64) {
	rc.events++
	text := bytes.TrimSpace(data)
	// An `event: error` carries the server's message (TGI, gateways); vLLM puts an error object
	// in a data chunk instead.
	if name == "error" {
		msg := serverMessageOf(string(text))
		if msg == "" {
			msg = "error event"
		}
		rc.noteError(kindServerError, msg)
		return
	}
	switch string(text) { // no allocation: the compiler special-cases a switch on string(bytes)
	case "":
		return
	case "[DONE]":
		rc.sawDone = true
		return
	}
	f, typed := readWireChunk(text)
	if !typed {
		v, decoded := decodeJSON(text)
		if !decoded {
			rc.noteError(kindMalformedChunk, "malformed chunk: "+truncateChars(text, 120))
			return
		}
		f = readChunk(v)
	}
	if f.hasErr {
		rc.noteError(kindServerError, f.err)
		return
	}
	if f.hasToken {
		rc.chunks = append(rc.chunks, tokenChunk{atMs: atMs, chars: f.generatedChars, hasContent: f.hasContent,
			reasoning: 2*f.reasoningChars > f.generatedChars})
	}
	rc.typed = rc.typed || f.typed
	rc.sawEnd = rc.sawEnd || f.terminal
	rc.functionCall = rc.functionCall || f.functionCall
	rc.messagesUsage = rc.messagesUsage || f.messagesUsage
	if f.hasReasoningTokens {
		rc.reasoningUsage, rc.hasReasoningUsage = f.reasoningTokens, true
	}
	if f.hasCacheCreation {
		rc.cacheCreation = f.cacheCreation
	}
	if f.finishReason != "" {
		rc.finishReason = f.finishReason
	}
	if f.hasPrompt {
		rc.promptTokens, rc.hasPrompt = f.promptTokens, true
	}
	if f.hasCompletion {
		rc.completion, rc.hasCompletion = f.completion, true
	}
	if f.hasCached {
		rc.cached, rc.hasCached = f.cached, true
	}
	if rc.keepText {
		rc.text.WriteString(f.content)
	}
}

// finish builds the request's record. The message of an errored record is raw here: the caller
// redacts and shortens it (redact.go).
func (rc *recorder) finish(end streamEnd) Record {
	r := Record{
		Status:                end.status,
		StartMs:               end.startMs,
		EndMs:                 end.endMs,
		RequestedInputTokens:  rc.requestedInput,
		RequestedOutputTokens: rc.requestedOutput,
		Events:                rc.events,
	}
	seen := len(rc.chunks)
	if rc.hasCompletion {
		seen = rc.completion
	}
	fail := func(kind, msg string) Record {
		r.Outcome, r.ErrorKind, r.ErrorMessage, r.OutputTokensSeen = outcomeErrored, kind, msg, seen
		return r
	}
	codeKind := kindOfTransportCode(end.code)
	bodyMessage := ""
	if end.body != "" {
		bodyMessage = serverMessageOf(end.body)
	}
	if statusKind := kindOfStatus(end.status); statusKind != "" {
		// The server's own words first ("CUDA out of memory"), then the transport's, then the status.
		msg := firstNonEmpty(bodyMessage, end.transportErr, rc.errMessage)
		if msg == "" {
			msg = "HTTP " + itoa(end.status)
		}
		kind := statusKind
		if end.status == 0 {
			switch {
			case codeKind != "":
				kind = codeKind
			case isTimeoutMessage(msg):
				kind = kindTimeout
			}
		}
		return fail(kind, msg)
	}
	// A 2xx answer that is not an event stream: a JSON error object, or a server that ignored
	// stream: true.
	if bodyMessage != "" {
		return fail(kindServerError, bodyMessage)
	}
	if end.firstInvalid != "" {
		rc.noteError(kindServerError, serverMessageOf(end.firstInvalid))
	}
	if rc.errKind != "" {
		return fail(rc.errKind, rc.errMessage)
	}
	if codeKind != "" {
		return fail(codeKind, firstNonEmpty(end.transportErr, end.code))
	}
	if end.transportErr != "" {
		if isTimeoutMessage(end.transportErr) {
			return fail(kindTimeout, end.transportErr)
		}
		return fail(kindStreamError, end.transportErr)
	}
	if rc.typed && !rc.sawEnd {
		return fail(kindTruncated,
			"stream ended before its terminal event (response.completed, response.incomplete, message_stop)")
	}
	if !rc.typed && !rc.sawDone && rc.finishReason == "" {
		return fail(kindTruncated, "stream ended without finish_reason or [DONE]")
	}
	if len(rc.chunks) == 0 {
		seen = 0
		return fail(kindNoTokens, "stream completed without a generated token")
	}
	rc.complete(&r)
	return r
}

// complete fills the figures of a completed request.
func (rc *recorder) complete(r *Record) {
	r.Outcome = outcomeCompleted
	r.OutputTokenSource, r.OutputTokens = sourceChunks, len(rc.chunks)
	if rc.hasCompletion {
		r.OutputTokenSource, r.OutputTokens = sourceUsage, max(rc.completion, 1)
	}
	arrivals := make([]float64, len(rc.chunks))
	weights := make([]int, len(rc.chunks))
	for i, c := range rc.chunks {
		arrivals[i], weights[i] = c.atMs, c.chars
	}
	perChunk := distributeTokens(r.OutputTokens, weights)
	rc.arrivals, rc.perChunk = arrivals, perChunk
	r.ITLMs = interTokenLatencies(arrivals, perChunk)
	r.ReasoningTokens = rc.reasoningTokens(perChunk, r.OutputTokens)
	// With usage below the chunk count (a server counting differently), keep one sample per token.
	if limit := max(0, r.OutputTokens-1); len(r.ITLMs) > limit {
		r.ITLMs = r.ITLMs[:limit]
	}
	r.TTFTMs = rc.chunks[0].atMs - r.StartMs
	for _, c := range rc.chunks {
		if c.hasContent {
			r.TTFCMs = some(c.atMs-r.StartMs, true)
			break
		}
	}
	r.E2EMs = r.EndMs - r.StartMs
	r.InputTokenSource, r.InputTokens = sourceRequested, rc.requestedInput
	if rc.hasPrompt {
		r.InputTokenSource, r.InputTokens = sourceUsage, rc.promptTokens
		if rc.messagesUsage {
			r.InputTokens += rc.cached + rc.cacheCreation
		}
	}
	r.CachedTokens = some(float64(rc.cached), rc.hasCached)
	r.TPOTMs = some(timePerOutputToken(r.E2EMs, r.TTFTMs, r.OutputTokens))
	r.DecodeSpeed = some(decodeSpeed(r.E2EMs, r.TTFTMs, r.OutputTokens))
	r.PrefillSpeed = some(prefillSpeed(r.InputTokens, r.TTFTMs))
	r.FinishReason = toolCallsFinish(rc.finishReason, rc.functionCall)
	r.SawDone = rc.sawDone
}

// reasoningTokens is the usage's reasoning figure when the server sent one, else the output tokens
// the distribution put on reasoning chunks (at most the output tokens: with usage below the chunk
// count each chunk still got one); absent without either.
func (rc *recorder) reasoningTokens(perChunk []int, outputTokens int) optional {
	if rc.hasReasoningUsage {
		return some(float64(rc.reasoningUsage), true)
	}
	n, seen := 0, false
	for i, c := range rc.chunks {
		if c.reasoning {
			n, seen = n+perChunk[i], true
		}
	}
	return some(float64(min(n, outputTokens)), seen)
}

var timeoutWords = regexp.MustCompile(`(?i)deadline exceeded|timeout|timed out`)

func isTimeoutMessage(msg string) bool { return timeoutWords.MatchString(msg) }

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
