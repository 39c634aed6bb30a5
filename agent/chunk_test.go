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

func FuzzWireChunk(f *testing.F) {
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
