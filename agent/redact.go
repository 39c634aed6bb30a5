package agent

import (
	"strings"
	"unicode"
)

// secretHeaders are the request headers whose values are credentials.
var secretHeaders = map[string]bool{
	"authorization": true, "api-key": true, "x-api-key": true, "proxy-authorization": true,
}

// secretsOf returns the credentials a request carries in its headers: each value, and the token
// after its scheme ("Bearer sk-..."), since a server may echo either.
func secretsOf(headers [][2]string) []string {
	var out []string
	for _, kv := range headers {
		if !secretHeaders[strings.ToLower(kv[0])] {
			continue
		}
		v := strings.TrimSpace(kv[1])
		if v == "" {
			continue
		}
		out = append(out, v)
		if _, token, ok := strings.Cut(v, " "); ok && strings.TrimSpace(token) != "" {
			out = append(out, strings.TrimSpace(token))
		}
	}
	return out
}

// messageForResults is an error message as results keep it: every secret replaced by
// "[redacted]", whitespace runs (newlines) as one space, at most max characters.
func messageForResults(msg string, secrets []string, max int) string {
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	msg = strings.Join(strings.FieldsFunc(msg, unicode.IsSpace), " ")
	return truncateChars([]byte(msg), max)
}

// redacted is s with every secret replaced by "[redacted]": for the texts an answer passes on as the
// server sent them (a body, an event), which a server may have echoed a key into.
func redacted(s string, secrets []string) string {
	for _, k := range secrets {
		s = strings.ReplaceAll(s, k, "[redacted]")
	}
	return s
}
