package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// params is one stream request as the agent runs it, read once from the caller's JSON
// (docs/reference/agent-api.md, "POST /stream"); nothing after parseParams looks at the JSON again.
type params struct {
	url     string
	method  string
	headers [][2]string
	body    *string

	timeout        time.Duration
	connectTimeout time.Duration
	headerTimeout  time.Duration
	idleTimeout    time.Duration

	// keepText: the answer carries the generated content as text, which a conversation sends back
	// as history with its next turn.
	keepText bool
	// events: the answer carries every event with its receive time.
	events bool

	// requestedInput and requestedOutput are the lengths the request asked for, kept in the record.
	requestedInput  int
	requestedOutput int
	// slo are the limits the request is judged against for goodput (slo.go); hasSLO: params.slo
	// was given, so the record carries a verdict.
	slo    []sloLimit
	hasSLO bool

	// timeOriginMs is the caller's clock when it made the call (k6's test-run time): every time in
	// the answer is on that scale, so the script can place it beside its own.
	timeOriginMs float64
	// callEpochMs is the caller's wall clock at the call, in ms since the Unix epoch, when the caller
	// knows it to a fraction of a ms; hasCallEpoch: it was given. The hand-off (handoff.go) is
	// measured from it.
	callEpochMs  float64
	hasCallEpoch bool
	// pool names the connection pool the request uses (the script sends one per k6 VU), so
	// connections are reused per user, as an application's HTTP client would.
	pool string
	// insecureSkipTLSVerify accepts any certificate from an https target (k6's option of that name).
	insecureSkipTLSVerify bool
}

// wireParams is the JSON of a stream request. Fields whose JSON type varies (a timeout is a
// number of seconds or a duration string) stay raw until parseParams reads them.
type wireParams struct {
	URL                   *string           `json:"url"`
	Method                *string           `json:"method"`
	Headers               map[string]string `json:"headers"`
	Body                  *string           `json:"body"`
	Timeout               json.RawMessage   `json:"timeout"`
	ConnectTimeout        json.RawMessage   `json:"connectTimeout"`
	HeaderTimeout         json.RawMessage   `json:"headerTimeout"`
	IdleTimeout           json.RawMessage   `json:"idleTimeout"`
	KeepText              *bool             `json:"keepText"`
	Events                *bool             `json:"events"`
	RequestedInputTokens  json.RawMessage   `json:"requestedInputTokens"`
	RequestedOutputTokens json.RawMessage   `json:"requestedOutputTokens"`
	SLO                   json.RawMessage   `json:"slo"`
	TimeOriginMs          *float64          `json:"timeOriginMs"`
	CallEpochMs           *float64          `json:"callEpochMs"`
	Pool                  *string           `json:"pool"`
	InsecureSkipTLSVerify *bool             `json:"insecureSkipTLSVerify"`
}

// errPrefix starts every misuse message: the script's llm.stream throws it as it stands.
const errPrefix = "llm.stream: "

// parseParams reads a stream request's JSON; an error is a misuse, answered 400 and thrown to the
// script.
func parseParams(b []byte) (*params, error) {
	var w wireParams
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, fmt.Errorf("%sparams.%s must not be a JSON %s", errPrefix, te.Field, te.Value)
		}
		return nil, fmt.Errorf("%sparams must be a JSON object: %v", errPrefix, err)
	}
	if w.URL == nil || *w.URL == "" {
		return nil, errors.New(errPrefix + "params.url is required")
	}
	p := &params{url: *w.URL, method: "POST", body: w.Body}
	if w.Method != nil && *w.Method != "" {
		p.method = *w.Method
	}
	for k, v := range w.Headers {
		p.headers = append(p.headers, [2]string{k, v})
	}
	if err := p.readDurations(&w); err != nil {
		return nil, err
	}
	p.keepText = w.KeepText != nil && *w.KeepText
	p.events = w.Events != nil && *w.Events
	p.insecureSkipTLSVerify = w.InsecureSkipTLSVerify != nil && *w.InsecureSkipTLSVerify
	var err error
	if p.requestedInput, err = countParam(w.RequestedInputTokens, "requestedInputTokens"); err != nil {
		return nil, err
	}
	if p.requestedOutput, err = countParam(w.RequestedOutputTokens, "requestedOutputTokens"); err != nil {
		return nil, err
	}
	if p.slo, p.hasSLO, err = parseSLO(w.SLO); err != nil {
		return nil, err
	}
	if w.TimeOriginMs != nil {
		if math.IsNaN(*w.TimeOriginMs) || math.IsInf(*w.TimeOriginMs, 0) {
			return nil, errors.New(errPrefix + "params.timeOriginMs must be a finite number of ms")
		}
		p.timeOriginMs = *w.TimeOriginMs
	}
	if w.CallEpochMs != nil {
		if math.IsNaN(*w.CallEpochMs) || math.IsInf(*w.CallEpochMs, 0) || *w.CallEpochMs <= 0 {
			return nil, errors.New(errPrefix + "params.callEpochMs must be a positive number of ms since the Unix epoch")
		}
		p.callEpochMs, p.hasCallEpoch = *w.CallEpochMs, true
	}
	if w.Pool != nil {
		p.pool = *w.Pool
	}
	return p, nil
}

func (p *params) readDurations(w *wireParams) error {
	for _, d := range []struct {
		name string
		raw  json.RawMessage
		dst  *time.Duration
	}{
		{"timeout", w.Timeout, &p.timeout},
		{"connectTimeout", w.ConnectTimeout, &p.connectTimeout},
		{"headerTimeout", w.HeaderTimeout, &p.headerTimeout},
		{"idleTimeout", w.IdleTimeout, &p.idleTimeout},
	} {
		var err error
		if *d.dst, err = durationParam(d.raw, d.name); err != nil {
			return err
		}
	}
	return nil
}

// nullish reports an absent or null JSON value.
func nullish(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// countParam reads a token count: a whole number >= 0; absent or null means 0.
func countParam(raw json.RawMessage, name string) (int, error) {
	if nullish(raw) {
		return 0, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, fmt.Errorf("%sparams.%s must be a whole number of tokens", errPrefix, name)
	}
	if f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("%sparams.%s must be a whole number of tokens >= 0, got %v", errPrefix, name, f)
	}
	return int(f), nil
}

// durationParam reads a timeout: a duration string (Go's, plus k6's days: "1d12h") or a number of
// seconds; absent, null or 0 means no limit.
func durationParam(raw json.RawMessage, name string) (time.Duration, error) {
	if nullish(raw) {
		return 0, nil
	}
	var secs float64
	if err := json.Unmarshal(raw, &secs); err != nil {
		var text string
		if json.Unmarshal(raw, &text) != nil {
			return 0, fmt.Errorf("%sparams.%s must be a duration string such as \"60s\" or a number of seconds",
				errPrefix, name)
		}
		text = strings.TrimSpace(text)
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			d, err := parseExtendedDuration(text)
			if err != nil || d < 0 {
				return 0, fmt.Errorf("%sparams.%s: %q is not a duration (use e.g. \"60s\", \"1m30s\", \"250ms\")",
					errPrefix, name, text)
			}
			return d, nil
		}
		secs = f
	}
	if math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 {
		return 0, fmt.Errorf("%sparams.%s must be a non-negative number of seconds, got %v", errPrefix, name, secs)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// daysPrefix is k6's extension of Go's durations: a leading whole number of days.
var daysPrefix = regexp.MustCompile(`^(\d+)d(.*)$`)

// parseExtendedDuration is time.ParseDuration with k6's days ("1d", "2d12h").
func parseExtendedDuration(s string) (time.Duration, error) {
	m := daysPrefix.FindStringSubmatch(s)
	if m == nil {
		return time.ParseDuration(s)
	}
	days, err := strconv.ParseInt(m[1], 10, 32)
	if err != nil {
		return 0, err
	}
	d := time.Duration(days) * 24 * time.Hour
	if m[2] == "" {
		return d, nil
	}
	rest, err := time.ParseDuration(m[2])
	if err != nil || rest < 0 {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	return d + rest, nil
}
