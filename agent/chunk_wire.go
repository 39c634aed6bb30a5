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
}

// wireNames are the member names of the typed shape. encoding/json matches names without regard
// to case, JSON.parse and the generic path exactly: a chunk with a name that differs from one of
// these only in case takes the generic path.
var wireNames = []string{
	"object", "error", "choices", "usage", "finish_reason", "text", "delta", "content", "reasoning_content",
	"reasoning", "tool_calls", "function", "name", "arguments", "prompt_tokens", "completion_tokens",
	"prompt_tokens_details", "cached_tokens",
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
			if content > 0 {
				f.hasContent = true
			}
			if content+reasoning+tool > 0 {
				f.hasToken = true
			}
			f.generatedChars += content + reasoning + tool
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
	}
	return f, true
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
