package llm

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/lib/types"
)

// params is what stream() read from its first argument, on the JS thread: the request goroutine
// never touches a JS value.
type params struct {
	url     string
	method  string
	headers [][2]string
	body    *string

	timeout        time.Duration
	connectTimeout time.Duration
	headerTimeout  time.Duration
	idleTimeout    time.Duration

	tags [][2]string

	// parseJSON: hand onEvents each event's data decoded as JSON (docs/k6-x-llm.md).
	parseJSON bool
	// keepText: the result carries the generated content as text (result.text), which a
	// conversation sends back as history with its next turn.
	keepText bool

	// requestedInput and requestedOutput are the lengths the request asked for, kept in the record.
	requestedInput  int
	requestedOutput int
	// deferMetrics: the script pushes the llm_* samples itself (result.pushMetrics), once it knows
	// the tags they need.
	deferMetrics bool
	// slo are the limits the request is judged against for goodput (slo.go); hasSLO: params.slo
	// was given, so the record carries a verdict and llm_goodput a sample.
	slo    []sloLimit
	hasSLO bool
}

// parseParams reads stream()'s params object; an error is a misuse, thrown to the script.
func parseParams(v sobek.Value) (*params, error) {
	obj, ok := v.(*sobek.Object)
	if !ok || sobek.IsNull(v) || obj.ClassName() == "Array" {
		return nil, errors.New("llm.stream: params must be an object")
	}
	p := &params{method: "POST"}
	u := obj.Get("url")
	if u == nil || !sobek.IsString(u) || u.String() == "" {
		return nil, errors.New("llm.stream: params.url is required")
	}
	p.url = u.String()
	if m := obj.Get("method"); !nullish(m) {
		p.method = m.String()
	}
	if h := obj.Get("headers"); !nullish(h) {
		ho, ok := h.(*sobek.Object)
		if !ok {
			return nil, errors.New("llm.stream: params.headers must be an object")
		}
		for _, k := range ho.Keys() {
			p.headers = append(p.headers, [2]string{k, ho.Get(k).String()})
		}
	}
	if b := obj.Get("body"); !nullish(b) {
		s := b.String()
		p.body = &s
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{
		{"timeout", &p.timeout},
		{"connectTimeout", &p.connectTimeout},
		{"headerTimeout", &p.headerTimeout},
		{"idleTimeout", &p.idleTimeout},
	} {
		var err error
		if *d.dst, err = durationParam(obj.Get(d.name), d.name); err != nil {
			return nil, err
		}
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{
		{"parseJson", &p.parseJSON},
		{"deferMetrics", &p.deferMetrics},
		{"keepText", &p.keepText},
	} {
		if v := obj.Get(b.name); !nullish(v) {
			x, ok := v.Export().(bool)
			if !ok {
				return nil, fmt.Errorf("llm.stream: params.%s must be true or false", b.name)
			}
			*b.dst = x
		}
	}
	for _, n := range []struct {
		name string
		dst  *int
	}{
		{"requestedInputTokens", &p.requestedInput},
		{"requestedOutputTokens", &p.requestedOutput},
	} {
		var err error
		if *n.dst, err = countParam(obj.Get(n.name), n.name); err != nil {
			return nil, err
		}
	}
	var err error
	if p.tags, err = tagsParam(obj.Get("tags"), "params.tags"); err != nil {
		return nil, err
	}
	if p.slo, p.hasSLO, err = parseSLO(obj.Get("slo")); err != nil {
		return nil, err
	}
	return p, nil
}

// tagsParam reads a tags object (string, number or boolean values); absent or null means none.
func tagsParam(v sobek.Value, what string) ([][2]string, error) {
	if nullish(v) {
		return nil, nil
	}
	to, ok := v.(*sobek.Object)
	if !ok {
		return nil, fmt.Errorf("llm.stream: %s must be an object", what)
	}
	var out [][2]string
	for _, k := range to.Keys() {
		tv := to.Get(k)
		switch tv.Export().(type) {
		case string, int64, float64, bool:
			out = append(out, [2]string{k, tv.String()})
		default:
			return nil, fmt.Errorf("llm.stream: %s: invalid value for tag %s: must be a string, number or boolean", what, k)
		}
	}
	return out, nil
}

// countParam reads a token count: a whole number >= 0; absent or null means 0.
func countParam(v sobek.Value, name string) (int, error) {
	if nullish(v) {
		return 0, nil
	}
	var f float64
	switch x := v.Export().(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, fmt.Errorf("llm.stream: params.%s must be a whole number of tokens", name)
	}
	if f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("llm.stream: params.%s must be a whole number of tokens >= 0, got %v", name, f)
	}
	return int(f), nil
}

// durationParam reads a timeout: a Go (or k6) duration string, or a number of seconds; absent,
// null or 0 means no limit.
func durationParam(v sobek.Value, name string) (time.Duration, error) {
	if nullish(v) {
		return 0, nil
	}
	var secs float64
	switch x := v.Export().(type) {
	case int64:
		secs = float64(x)
	case float64:
		secs = x
	case string:
		text := strings.TrimSpace(x)
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			// ParseExtendedDuration also takes days ("1d12h"), as k6's own options do.
			d, err := types.ParseExtendedDuration(text)
			if err != nil || d < 0 {
				return 0, fmt.Errorf("llm.stream: params.%s: %q is not a duration (use e.g. \"60s\", \"1m30s\", \"250ms\")", name, x)
			}
			return d, nil
		}
		secs = f
	default:
		return 0, fmt.Errorf("llm.stream: params.%s must be a duration string such as \"60s\" or a number of seconds", name)
	}
	if math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 {
		return 0, fmt.Errorf("llm.stream: params.%s must be a non-negative number of seconds, got %v", name, secs)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

func nullish(v sobek.Value) bool {
	return v == nil || sobek.IsUndefined(v) || sobek.IsNull(v)
}
