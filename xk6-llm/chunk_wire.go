package llm

import (
	"math"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The common shape of a streamed chunk, decoded into typed fields: several times cheaper than a
// generic map, and at hundreds of streams the decode is the largest part of the per-token work.
// Anything the typed shape cannot hold (a field of an unexpected type, an error member) falls back
// to the generic decode and readChunk, so both give the same facts (a test holds them to it).
type wireChunk struct {
	Object  string         `json:"object"`
	Error   jsontext.Value `json:"error"`
	Choices []*wireChoice  `json:"choices"`
	Usage   *wireUsage     `json:"usage"`
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

// wireOptions are decodeOptions with names matched exactly, as JSON.parse and the generic path do.
var wireOptions = json.JoinOptions(decodeOptions, json.MatchCaseInsensitiveNames(false), json.RejectUnknownMembers(false))

// readWireChunk reads a chunk through the typed shape; ok is false when the chunk needs the
// generic path (not this shape, or an error object to read).
func readWireChunk(b []byte) (chunkFacts, bool) {
	var w wireChunk
	if err := json.Unmarshal(b, &w, wireOptions); err != nil || w.Error != nil || w.Object == "error" {
		return chunkFacts{}, false
	}
	if jsontext.Value(b).Kind() != '{' {
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
