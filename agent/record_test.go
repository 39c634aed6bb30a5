package agent

import (
	"slices"
	"strings"
	"testing"
)

// feed interprets literal event data arriving at the given times (ms); the request starts at 0.
func feed(rc *recorder, times []float64, data ...string) {
	for i, d := range data {
		rc.event("", []byte(d), times[i])
	}
}

const (
	role  = `{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`
	usage = `{"choices":[],"usage":{"prompt_tokens":1024,"completion_tokens":%s}}`
)

func content(s string) string {
	return `{"choices":[{"index":0,"delta":{"content":"` + s + `"},"finish_reason":null}]}`
}

func TestRecordReasoningThenContent(t *testing.T) {
	rc := recorder{requestedInput: 1000}
	reasoning := `{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"},"finish_reason":null}]}`
	stop := `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	feed(&rc, []float64{50, 80, 120, 150, 151}, role, reasoning, content("Hi"), stop, "[DONE]")
	r := rc.finish(streamEnd{status: 200, endMs: 152})
	if r.Outcome != outcomeCompleted || r.TTFTMs != 80 || !r.TTFCMs.ok || r.TTFCMs.value != 120 {
		t.Fatalf("TTFT at the first reasoning token, TTFC at the first content token: %+v", r)
	}
	// No usage: tokens counted from chunks, input from the request.
	if r.OutputTokens != 2 || r.OutputTokenSource != sourceChunks ||
		r.InputTokens != 1000 || r.InputTokenSource != sourceRequested {
		t.Errorf("counts: %+v", r)
	}
	if r.FinishReason != "stop" || !r.SawDone || !slices.Equal(r.ITLMs, []float64{40}) {
		t.Errorf("finish %q done %v itl %v", r.FinishReason, r.SawDone, r.ITLMs)
	}
}

func TestRecordOneTokenHasNoDecodeFigures(t *testing.T) {
	rc := recorder{}
	feed(&rc, []float64{10, 20, 30}, content("a"), strings.Replace(usage, "%s", "1", 1), "[DONE]")
	r := rc.finish(streamEnd{status: 200, endMs: 40})
	if r.Outcome != outcomeCompleted || len(r.ITLMs) != 0 || r.TPOTMs.ok || r.DecodeSpeed.ok {
		t.Errorf("one token: %+v", r)
	}
}

func TestRecordUsageBelowChunkCount(t *testing.T) {
	rc := recorder{}
	feed(&rc, []float64{10, 20, 30, 40, 41},
		content("a"), content("b"), content("c"), strings.Replace(usage, "%s", "2", 1), "[DONE]")
	r := rc.finish(streamEnd{status: 200, endMs: 50})
	if r.OutputTokens != 2 || len(r.ITLMs) != 1 {
		t.Errorf("one ITL sample per usage token after the first: %d tokens, itl %v", r.OutputTokens, r.ITLMs)
	}
}

func TestRecordErrors(t *testing.T) {
	tests := []struct {
		name     string
		data     []string
		end      streamEnd
		kind     string
		contains string
	}{
		{"connection refused", nil,
			streamEnd{code: codeConnect, transportErr: "dial tcp: connection refused"}, kindConnection, "refused"},
		{"header timeout", nil,
			streamEnd{code: codeHeaderTimeout, transportErr: "no response headers within 1s"}, kindTTFBTimeout, "headers"},
		{"whole timeout before the head", nil,
			streamEnd{code: codeTimeout, transportErr: "request timeout after 1s (timeout)"}, kindTimeout, "timeout"},
		{"idle mid-stream", []string{content("a")},
			streamEnd{status: 200, code: codeIdleTimeout, transportErr: "no data read for 1s"}, kindStalled, "no data"},
		{"reset mid-stream", []string{content("a")},
			streamEnd{status: 200, code: codeReset, transportErr: "connection reset by peer"}, kindStreamError, "reset"},
		{"3xx", nil, streamEnd{status: 302}, kindHTTPOther, "HTTP 302"},
		{"500 without body", nil, streamEnd{status: 500}, kindHTTP5xx, "HTTP 500"},
		{"500 with the server's words", nil,
			streamEnd{status: 500, body: `{"error":{"message":"CUDA out of memory"}}`}, kindHTTP5xx, "CUDA out of memory"},
		{"200 JSON error body", nil,
			streamEnd{status: 200, body: `{"object":"error","message":"model overloaded"}`},
			kindServerError, "model overloaded"},
		{"bare JSON line in a 200 stream", []string{content("a")},
			streamEnd{status: 200, firstInvalid: `{"error":"bad"}`}, kindServerError, "bad"},
		{"error string", []string{`{"error":"boom"}`}, streamEnd{status: 200}, kindServerError, "boom"},
		{"error object without message", []string{`{"error":{"code":7}}`},
			streamEnd{status: 200}, kindServerError, `{"code":7}`},
		{"not an object", []string{`[1]`}, streamEnd{status: 200}, kindServerError, "not a JSON object"},
		{"[DONE] alone", []string{"[DONE]"}, streamEnd{status: 200}, kindNoTokens, "without a generated token"},
		{"first error wins", []string{"nope", `{"error":"later"}`},
			streamEnd{status: 200, code: codeReset}, kindMalformedChunk, "malformed chunk: nope"},
		{"line too long", []string{content("a")},
			streamEnd{status: 200, code: codeLineTooLong, transportErr: "an event-stream line is longer"},
			kindMalformedChunk, "longer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc := recorder{}
			times := make([]float64, len(tc.data))
			feed(&rc, times, tc.data...)
			r := rc.finish(tc.end)
			if r.Outcome != outcomeErrored || r.ErrorKind != tc.kind || !strings.Contains(r.ErrorMessage, tc.contains) {
				t.Errorf("got %s %q %q, want %s containing %q", r.Outcome, r.ErrorKind, r.ErrorMessage, tc.kind, tc.contains)
			}
		})
	}
}

func TestRecordEventError(t *testing.T) {
	rc := recorder{}
	rc.event("", []byte(content("a")), 10)
	rc.event("error", []byte(`{"error":{"message":"upstream closed"}}`), 20)
	r := rc.finish(streamEnd{status: 200, endMs: 30})
	if r.ErrorKind != kindServerError || r.ErrorMessage != "upstream closed" || r.OutputTokensSeen != 1 {
		t.Errorf("an event: error after a token: %+v", r)
	}
}

func TestMessageForResults(t *testing.T) {
	secrets := secretsOf([][2]string{{"Authorization", "Bearer sk-123"}, {"Content-Type", "application/json"}})
	got := messageForResults("bad key sk-123\n  for\tBearer sk-123", secrets, 200)
	if got != "bad key [redacted] for [redacted]" {
		t.Errorf("got %q", got)
	}
	if got := messageForResults(strings.Repeat("é", 300), nil, 200); len([]rune(got)) != 200 {
		t.Errorf("%d characters, want 200", len([]rune(got)))
	}
}

func TestRecordKeepsTheContentTextWhenAsked(t *testing.T) {
	reasoning := `{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"},"finish_reason":null}]}`
	completion := `{"choices":[{"index":0,"text":" and more","finish_reason":null}]}`
	cached := `{"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":4,` +
		`"prompt_tokens_details":{"cached_tokens":32}}}`
	for _, keep := range []bool{true, false} {
		rc := recorder{keepText: keep}
		feed(&rc, []float64{10, 20, 30, 40, 50, 60, 61},
			role, reasoning, content("Hi"), content(` \"there\"`), completion, cached, "[DONE]")
		r := rc.finish(streamEnd{status: 200, endMs: 70})
		want := ""
		if keep {
			// Content only: reasoning is not part of what a conversation sends back.
			want = `Hi "there" and more`
		}
		if got := rc.text.String(); got != want {
			t.Errorf("keepText %v: text %q, want %q", keep, got, want)
		}
		if !r.CachedTokens.ok || r.CachedTokens.value != 32 || r.InputTokens != 40 {
			t.Errorf("cached tokens from usage.prompt_tokens_details: %+v", r.CachedTokens)
		}
	}
	rc := recorder{}
	feed(&rc, []float64{10, 20}, content("a"), strings.Replace(usage, "%s", "1", 1))
	if r := rc.finish(streamEnd{status: 200, endMs: 30}); r.CachedTokens.ok {
		t.Errorf("usage without prompt_tokens_details: cached tokens must be absent, got %+v", r.CachedTokens)
	}
}

func TestRecordTypedEdges(t *testing.T) {
	// A Responses error event sent without `event: error`: the data alone says it is one.
	rc := recorder{}
	feed(&rc, []float64{10, 20}, `{"type":"response.output_text.delta","delta":"a"}`,
		`{"type":"error","code":"rate_limit_exceeded","message":"slow down"}`)
	if r := rc.finish(streamEnd{status: 200, endMs: 30}); r.ErrorKind != kindServerError || r.ErrorMessage != "slow down" {
		t.Errorf("error event in the data: %+v", r)
	}
	// A message_delta naming input_tokens again (some servers do) keeps message_start's cache reads.
	rc = recorder{}
	feed(&rc, []float64{10, 20, 30, 40},
		`{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}`,
		`{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}`,
		`{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"input_tokens":6,"output_tokens":3}}`,
		`{"type":"message_stop"}`)
	r := rc.finish(streamEnd{status: 200, endMs: 50})
	if r.InputTokens != 106 || r.CachedTokens.value != 100 || r.OutputTokens != 3 || r.FinishReason != "pause_turn" {
		t.Errorf("messages usage: %+v", r)
	}
	if r.ReasoningTokens.ok {
		t.Errorf("no reasoning arrived, none in usage: reasoningTokens must be absent, got %+v", r.ReasoningTokens)
	}
}

// A Responses function call completes as any response does (status "completed"); the record says
// "tool_calls", as chat's finish_reason and Messages' stop_reason tool_use do, however the stream
// shows the call: its item, its arguments, or the final response's output alone.
func TestRecordResponsesFunctionCallFinish(t *testing.T) {
	const (
		text      = `{"type":"response.output_text.delta","delta":"a"}`
		completed = `{"type":"response.completed","response":{"status":"completed","output":%s,` +
			`"usage":{"input_tokens":5,"output_tokens":1}}}`
		fcItem = `{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`
	)
	final := func(output string) string { return strings.Replace(completed, "%s", output, 1) }
	cases := []struct {
		name   string
		events []string
		want   string
	}{
		{"text only", []string{text, final(`[{"type":"message"}]`)}, "stop"},
		{"item added, no arguments streamed", []string{
			`{"type":"response.output_item.added","item":` + fcItem + `}`, text, final(`[]`)}, "tool_calls"},
		{"arguments streamed", []string{
			`{"type":"response.function_call_arguments.delta","delta":"{}"}`, final(`[]`)}, "tool_calls"},
		{"in the final output only", []string{text, final(`[{"type":"message"},` + fcItem + `]`)}, "tool_calls"},
		{"incomplete keeps its reason", []string{
			`{"type":"response.function_call_arguments.delta","delta":"{"}`,
			`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"}}}`,
		}, "length"},
	}
	for _, c := range cases {
		rc := recorder{}
		times := make([]float64, len(c.events))
		for i := range times {
			times[i] = float64(10 * (i + 1))
		}
		feed(&rc, times, c.events...)
		if r := rc.finish(streamEnd{status: 200, endMs: 100}); r.FinishReason != c.want {
			t.Errorf("%s: finishReason %q, want %q", c.name, r.FinishReason, c.want)
		}
	}
}
