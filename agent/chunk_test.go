package agent

import (
	"strings"
	"testing"
)

// The typed decode must say what the generic one says of every chunk it accepts.
func checkWireAgrees(t *testing.T, data string) {
	t.Helper()
	typed, ok := readWireChunk([]byte(data))
	if !ok {
		return
	}
	v, decoded := decodeJSON([]byte(data))
	if !decoded {
		// The generic decode refuses some JSON that JSON.parse takes (a duplicate name whose values
		// differ in type, inside a member the typed shape skips): the typed path is the closer one.
		return
	}
	if generic := readChunk(v); typed != generic {
		t.Fatalf("%q: typed %+v, generic %+v", data, typed, generic)
	}
}

func TestWireChunkAgreesWithGeneric(t *testing.T) {
	cases := []string{
		content("a"), role, strings.Replace(usage, "%s", "7", 1),
		`{"choices":[{"delta":{"reasoning_content":"hm","content":null},"finish_reason":null}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f"}},{},null]}}]}`,
		`{"choices":[null,{"text":"ab"}],"usage":null}`,
		`{"choices":[{"delta":{"content":"é😀"}}],"Choices":[{"text":"x"}]}`,
		`{"choices":[{"delta":{"content":5}}]}`, `{"error":"x"}`, `{"object":"error","message":"m"}`,
		`null`, `[1]`, `{"usage":{"prompt_tokens":"3"}}`, `{"choices":[{"finish_reason":"stop","delta":{}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":9,"prompt_tokens_details":{"cached_tokens":8}}}`,
		`{"usage":{"prompt_tokens_details":{"cached_tokens":null}}}`, `{"usage":{"prompt_tokens_details":7}}`,
		`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}`, `{"choices":[{"text":" x"},{"text":"y"}]}`,
	}
	cases = append(cases, typedCases...)
	for _, c := range cases {
		checkWireAgrees(t, c)
	}
	if _, ok := readWireChunk([]byte(`{"error":{"message":"m"}}`)); ok {
		t.Error("an error object must take the generic path")
	}
	if _, ok := readWireChunk([]byte(`null`)); ok {
		t.Error("null is not a chunk object")
	}
	// Every data line of every transcript.
	for _, tr := range transcripts(t) {
		for _, line := range strings.Split(string(tr.body), "\n") {
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "data:"); ok {
				checkWireAgrees(t, strings.TrimSpace(d))
			}
		}
	}
}

// typedCases are Responses and Messages events, the odd shapes among them.
var typedCases = []string{
	`{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`,
	`{"type":"response.reasoning_text.delta","delta":"hm"}`,
	`{"type":"response.reasoning_summary_text.delta","delta":"s"}`,
	`{"type":"response.function_call_arguments.delta","delta":"{\"a"}`, `{"type":"response.refusal.delta","delta":"no"}`,
	`{"type":"response.output_text.delta","delta":""}`, `{"type":"response.output_text.delta","delta":null}`,
	`{"type":"response.output_text.delta","delta":5}`, `{"type":"response.output_text.delta"}`,
	`{"type":"response.output_text.delta","delta":"a","choices":[{"text":"b"}],"usage":{"prompt_tokens":3}}`,
	`{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":9,"output_tokens":2,` +
		`"input_tokens_details":{"cached_tokens":4},"output_tokens_details":{"reasoning_tokens":1}}}}`,
	`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"}}}`,
	`{"type":"response.failed","response":{"error":{"message":"boom"}}}`, `{"type":"error","code":"x","message":"m"}`,
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, `{"type":"ping"}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`,
	`{"type":"content_block_delta","delta":{"type":"thinking_delta","thinking":"hm"}}`,
	`{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":""}}`,
	`{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"{\"a"}}`,
	`{"type":"content_block_delta","delta":{"type":"signature_delta","signature":"EqQ"}}`,
	`{"type":"content_block_delta","delta":{"type":"text_delta","thinking":"x"}}`,
	`{"type":"content_block_delta","delta":"x"}`,
	`{"type":"content_block_delta","delta":null}`, `{"type":"content_block_delta","delta":{"type":"text_delta","text":5}}`,
	`{"type":"content_block_delta","Delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","type":"ping"}`,
	`{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":7,"output_tokens":1}}}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12}}`,
	`{"type":"message_stop"}`, `{"type":5,"choices":[{"text":"a"}]}`, `{"type":"chat.chunk","choices":[{"text":"a"}]}`,
	`{"choices":[],"usage":{"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":4}}}`,
}

// The typed decode must not answer a typed event it has no shape for: empty facts would lose the
// terminal event, the usage or the error.
func TestWireChunkRefusesTypedEventsItCannotRead(t *testing.T) {
	for _, c := range []string{
		`{"type":"response.completed","response":{"status":"completed"}}`, `{"type":"message_stop"}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`, `{"type":"error","message":"m"}`,
		`{"type":"response.failed","response":{}}`, `{"type":"message_start","message":{}}`,
	} {
		if _, ok := readWireChunk([]byte(c)); ok {
			t.Errorf("%s: the typed path answered", c)
		}
	}
	for _, c := range []string{`{"type":"response.output_text.delta","delta":"x"}`,
		`{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}`} {
		if f, ok := readWireChunk([]byte(c)); !ok || !f.hasContent || !f.typed {
			t.Errorf("%s: a hot event must take the typed path: %+v %v", c, f, ok)
		}
	}
}

func FuzzWireChunk(f *testing.F) {
	for _, c := range typedCases {
		f.Add(c)
	}
	f.Add(content("a"))
	f.Add(`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f"}}]}}],"usage":{"completion_tokens":2}}`)
	f.Fuzz(func(t *testing.T, data string) { checkWireAgrees(t, data) })
}

// One content chunk as vLLM streams it, read through the typed path: the agent's per-token decode cost.
func BenchmarkWireChunk(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,` +
		`"model":"Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8","choices":[{"index":0,"delta":{"content":" the"},` +
		`"logprobs":null,"finish_reason":null}]}`)
	b.ReportAllocs()
	for range b.N {
		if _, ok := readWireChunk(data); !ok {
			b.Fatal("the typed path refused a plain content chunk")
		}
	}
}

// A Responses text delta and a Messages text delta as servers stream them.
func BenchmarkWireTypedDelta(b *testing.B) {
	events := map[string][]byte{
		"responses": []byte(`{"type":"response.output_text.delta","sequence_number":12,"item_id":"msg_68a1",` +
			`"output_index":0,"content_index":0,"delta":" the","logprobs":[]}`),
		"messages": []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" the"}}`),
	}
	for name, data := range events {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, ok := readWireChunk(data); !ok {
					b.Fatal("the typed path refused a text delta")
				}
			}
		})
	}
}
