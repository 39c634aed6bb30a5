package agent

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
)

// The common shape of a streamed chunk, decoded into typed fields: several times cheaper than a
// generic map, and at hundreds of streams the decode is the largest part of the per-token work.
// Anything the typed shape cannot hold (a field of an unexpected type, an error member) falls back
// to the generic decode and readChunk, so both give the same facts (a test holds them to it).
type wireChunk struct {
	// Type and Delta are a Responses or Messages event's (chunk_typed.go); a chat chunk has neither.
	Type    *string         `json:"type"`
	Delta   json.RawMessage `json:"delta"`
	Object  string          `json:"object"`
	Error   json.RawMessage `json:"error"`
	Choices []*wireChoice   `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
}

type wireChoice struct {
	FinishReason *string    `json:"finish_reason"`
	Text         *string    `json:"text"`
	Delta        *wireDelta `json:"delta"`
}

type wireDelta struct {
	Content          *string         `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	ToolCalls        []*wireToolCall `json:"tool_calls"`
}

type wireToolCall struct {
	Function *struct {
		Name      *string `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens        *float64 `json:"prompt_tokens"`
	CompletionTokens    *float64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *float64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens *float64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// wireMessagesDelta is a content_block_delta's delta (Messages API).
type wireMessagesDelta struct {
	Type        *string `json:"type"`
	Text        *string `json:"text"`
	Thinking    *string `json:"thinking"`
	PartialJSON *string `json:"partial_json"`
}

// wireNames are the member names of the typed shape. encoding/json matches names without regard
// to case, JSON.parse and the generic path exactly: a chunk with a name that differs from one of
// these only in case takes the generic path.
var wireNames = []string{
	"object", "error", "choices", "usage", "finish_reason", "text", "delta", "content", "reasoning_content",
	"reasoning", "tool_calls", "function", "name", "arguments", "prompt_tokens", "completion_tokens",
	"prompt_tokens_details", "cached_tokens", "completion_tokens_details", "reasoning_tokens", "type", "thinking",
	"partial_json",
}

// namesMatchExactly reports whether every member name of the JSON text b that case-folds to one of
// wireNames equals it; a name with an escape is not compared, so it answers false.
func namesMatchExactly(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end, escaped := i+1, false
		for end < len(b) && b[end] != '"' {
			if b[end] == '\\' {
				escaped = true
				end++
			}
			end++
		}
		if end >= len(b) {
			return true // unterminated: the decode refuses it anyway
		}
		next := end + 1
		for next < len(b) && (b[next] == ' ' || b[next] == '\t' || b[next] == '\n' || b[next] == '\r') {
			next++
		}
		if next < len(b) && b[next] == ':' {
			if escaped {
				return false
			}
			if !exactName(b[i+1 : end]) {
				return false
			}
		}
		i = end
	}
	return true
}

func exactName(name []byte) bool {
	// The wire names are lower-case ASCII, so a name without an upper-case ASCII letter or a non-ASCII byte
	// (which can fold to ASCII: U+017F to s, U+212A to k) can only match one of them exactly: most chunks stop here.
	folds := false
	for _, c := range name {
		if ('A' <= c && c <= 'Z') || c >= 0x80 {
			folds = true
			break
		}
	}
	if !folds {
		return true
	}
	for _, n := range wireNames {
		if string(name) != n && strings.EqualFold(string(name), n) {
			return false
		}
	}
	return true
}

// readWireChunk reads a chunk through the typed shape; ok is false when the chunk needs the
// generic path (not this shape, or an error object to read).
func readWireChunk(b []byte) (chunkFacts, bool) {
	var w wireChunk
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' || !namesMatchExactly(b) {
		return chunkFacts{}, false
	}
	if err := json.Unmarshal(b, &w); err != nil || w.Error != nil || w.Object == "error" {
		return chunkFacts{}, false
	}
	if w.Type != nil && (*w.Type == "error" || isTypedEvent(*w.Type)) {
		return readWireTyped(*w.Type, w.Delta)
	}
	var f chunkFacts
	for _, c := range w.Choices {
		if c == nil {
			continue
		}
		if c.FinishReason != nil {
			f.finishReason = *c.FinishReason
		}
		if d := c.Delta; d != nil {
			if d.Content != nil {
				f.content += *d.Content
			}
			content := strLen(d.Content)
			reasoning := strLen(d.ReasoningContent) + strLen(d.Reasoning)
			tool := 0
			for _, call := range d.ToolCalls {
				if call == nil || call.Function == nil {
					tool++
					continue
				}
				tool += max(1, strLen(call.Function.Arguments)+strLen(call.Function.Name))
			}
			f.addGenerated(content, reasoning, tool)
		} else if n := strLen(c.Text); n > 0 {
			f.hasToken, f.hasContent = true, true
			f.generatedChars += n
			f.content += *c.Text
		}
	}
	if u := w.Usage; u != nil {
		f.promptTokens, f.hasPrompt = finiteCount(u.PromptTokens)
		f.completion, f.hasCompletion = finiteCount(u.CompletionTokens)
		if d := u.PromptTokensDetails; d != nil {
			f.cached, f.hasCached = finiteCount(d.CachedTokens)
		}
		if d := u.CompletionTokensDetails; d != nil {
			f.reasoningTokens, f.hasReasoningTokens = finiteCount(d.ReasoningTokens)
		}
	}
	return f, true
}

// readWireTyped reads the typed events that carry the tokens: a Responses text delta, a Messages
// content_block_delta. The rest (a few per stream) and errors take the generic path.
func readWireTyped(t string, delta json.RawMessage) (chunkFacts, bool) {
	f := chunkFacts{typed: true}
	switch t {
	case "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta",
		"response.reasoning_summary_text.delta", "response.function_call_arguments.delta":
		var s *string
		if delta != nil && json.Unmarshal(delta, &s) != nil {
			return chunkFacts{}, false
		}
		if s != nil {
			f.addTypedDelta(t, *s)
		}
		f.functionCall = t == "response.function_call_arguments.delta"
		return f, true
	case "content_block_delta":
		var d *wireMessagesDelta
		if delta != nil && json.Unmarshal(delta, &d) != nil {
			return chunkFacts{}, false
		}
		if d == nil || d.Type == nil {
			return f, true
		}
		var s *string
		switch *d.Type {
		case "text_delta":
			s = d.Text
		case "thinking_delta":
			s = d.Thinking
		case "input_json_delta":
			s = d.PartialJSON
		}
		if s != nil {
			f.addTypedDelta(*d.Type, *s)
		}
		return f, true
	}
	return chunkFacts{}, false
}

func strLen(s *string) int {
	if s == nil {
		return 0
	}
	return textLength(*s)
}

func finiteCount(f *float64) (int, bool) {
	if f == nil || math.IsNaN(*f) || math.IsInf(*f, 0) {
		return 0, false
	}
	return int(math.Round(*f)), true
}
