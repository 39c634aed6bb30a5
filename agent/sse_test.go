package agent

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// parseAll feeds the chunks in order and returns the events, the parser and the first error.
// feedEvents feeds one read through FeedRaw and hands emit each event with its data copied out of the call.
func feedEvents(p *Parser, b []byte, emit func(Event)) error {
	return p.FeedRaw(b, func(name string, data []byte) { emit(Event{Name: name, Data: string(data)}) })
}

func parseAll(maxLine int, chunks ...[]byte) ([]Event, *Parser, error) {
	p := NewParser(maxLine)
	var out []Event
	emit := func(e Event) { out = append(out, e) }
	for _, c := range chunks {
		if err := feedEvents(p, c, emit); err != nil {
			return out, p, err
		}
	}
	return out, p, nil
}

func TestParser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		in           string
		want         []Event
		invalid      int
		firstInvalid string
	}{
		{name: "one event", in: "data: hi\n\n", want: []Event{{Data: "hi"}}},
		{name: "no space after colon", in: "data:hi\n\n", want: []Event{{Data: "hi"}}},
		{name: "only one space dropped", in: "data:  hi\n\n", want: []Event{{Data: " hi"}}},
		{name: "CRLF", in: "data: a\r\n\r\ndata: b\r\n\r\n", want: []Event{{Data: "a"}, {Data: "b"}}},
		{name: "CR", in: "data: a\r\rdata: b\r\r", want: []Event{{Data: "a"}, {Data: "b"}}},
		{name: "multi-line data", in: "data: a\ndata: b\ndata\n\n", want: []Event{{Data: "a\nb\n"}}},
		{
			name: "event name", in: "event: delta\ndata: x\n\ndata: y\n\n",
			want: []Event{{Name: "delta", Data: "x"}, {Data: "y"}},
		},
		{name: "comments and keep-alives", in: ": ping\n\n:\n\ndata: x\n: mid\n\n", want: []Event{{Data: "x"}}},
		{name: "id and retry ignored", in: "id: 7\nretry: 100\n\ndata: x\nid: 8\n\n", want: []Event{{Data: "x"}}},
		{name: "name reset by an empty block", in: "event: e\n\ndata: x\n\n", want: []Event{{Data: "x"}}},
		{name: "empty data is an event", in: "data:\n\n", want: []Event{{Data: ""}}},
		{name: "BOM skipped", in: "\uFEFFdata: x\n\n", want: []Event{{Data: "x"}}},
		{name: "only the first BOM", in: "\uFEFF\uFEFFdata: x\n\n", want: nil, invalid: 1, firstInvalid: "\uFEFFdata: x"},
		{name: "open event dropped", in: "data: a\n\ndata: b\n", want: []Event{{Data: "a"}}},
		{name: "unended line dropped", in: "data: a\n\ndata: b", want: []Event{{Data: "a"}}},
		{
			name: "bare JSON error", in: "{\"error\":\"CUDA out of memory\"}\n\ndata: x\nfoo\n\n",
			want: []Event{{Data: "x"}}, invalid: 2, firstInvalid: "{\"error\":\"CUDA out of memory\"}",
		},
		{name: "field without colon", in: "data\n\n", want: []Event{{Data: ""}}},
		{name: "data with colons", in: "data: {\"a\":1}\n\n", want: []Event{{Data: "{\"a\":1}"}}},
		{
			name: "invalid line truncated", in: strings.Repeat("é", 600) + "\n",
			invalid: 1, firstInvalid: strings.Repeat("é", maxInvalidLineChars),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, p, err := parseAll(0, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events = %q, want %q", got, tc.want)
			}
			if p.InvalidLines != tc.invalid || p.FirstInvalidLine != tc.firstInvalid {
				t.Errorf("invalid = %d %q, want %d %q", p.InvalidLines, p.FirstInvalidLine, tc.invalid, tc.firstInvalid)
			}
			// Byte by byte gives the same events: the split-invariance FuzzParser checks at random.
			var bytewise [][]byte
			for i := range len(tc.in) {
				bytewise = append(bytewise, []byte{tc.in[i]})
			}
			got2, p2, err := parseAll(0, bytewise...)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got2, tc.want) || p2.InvalidLines != tc.invalid || p2.FirstInvalidLine != tc.firstInvalid {
				t.Errorf("byte by byte: events = %q (invalid %d %q), want %q", got2, p2.InvalidLines, p2.FirstInvalidLine, tc.want)
			}
		})
	}
}

func TestParserSplitCRLF(t *testing.T) {
	t.Parallel()
	// A CR ending one read and an LF starting the next are one line end, not an empty line.
	got, _, err := parseAll(0, []byte("data: a\r"), []byte("\ndata: b\r\n\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Event{{Data: "a\nb"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}

func TestParserLineTooLong(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		chunks  []string
		wantErr bool
		want    []Event
	}{
		{
			name: "at the limit", chunks: []string{"data:" + strings.Repeat("x", 11) + "\n\n"},
			want: []Event{{Data: strings.Repeat("x", 11)}},
		},
		{
			name: "over, ended", chunks: []string{"data: a\n\ndata:" + strings.Repeat("x", 12) + "\n\n"},
			wantErr: true, want: []Event{{Data: "a"}},
		},
		{name: "over, not ended", chunks: []string{"data:" + strings.Repeat("x", 12)}, wantErr: true},
		{name: "over across reads", chunks: []string{"data:xxxxxx", "xxxxx", "x\n\n"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			chunks := make([][]byte, len(tc.chunks))
			for i, c := range tc.chunks {
				chunks[i] = []byte(c)
			}
			got, p, err := parseAll(16, chunks...)
			if tc.wantErr != errors.Is(err, ErrLineTooLong) {
				t.Fatalf("err = %v, want line too long: %v", err, tc.wantErr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events = %q, want %q", got, tc.want)
			}
			afterError := func(Event) { t.Error("emitted after the error") }
			if tc.wantErr && !errors.Is(feedEvents(p, []byte("data: y\n\n"), afterError), ErrLineTooLong) {
				t.Error("the error is not sticky")
			}
		})
	}
}

func TestParserDoesNotKeepTheReadBuffer(t *testing.T) {
	t.Parallel()
	p := NewParser(0)
	var got []Event
	buf := []byte("event: e\ndata: abc")
	if err := feedEvents(p, buf, func(e Event) { got = append(got, e) }); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXXXXXXXXXXXXXXX") // the caller reuses its read buffer
	if err := feedEvents(p, []byte("\n\n"), func(e Event) { got = append(got, e) }); err != nil {
		t.Fatal(err)
	}
	if want := []Event{{Name: "e", Data: "abc"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}

// FuzzParser: any input split anywhere gives the same events, counts and error as unsplit, and
// never panics.
func FuzzParser(f *testing.F) {
	for _, s := range []string{
		"data: hi\n\n", "\uFEFFdata: x\r\n\r\n", "event: e\rdata: a\rdata: b\r\r", ": c\n\nid: 1\nretry: 2\n\n",
		"{\"error\":1}\ndata\n\n", "\xEF\xBB", "data: a\r", "\r\n\r\n\n\r",
	} {
		f.Add([]byte(s), uint16(1), uint16(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut1, cut2 uint16) {
		const maxLine = 64 // small, so the fuzzer reaches line_too_long
		want, wp, wantErr := parseAll(maxLine, in)
		a, b := int(cut1)%(len(in)+1), int(cut2)%(len(in)+1)
		if a > b {
			a, b = b, a
		}
		got, gp, gotErr := parseAll(maxLine, in[:a], in[a:b], in[b:])
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %d,%d: events %q, unsplit %q", a, b, got, want)
		}
		if !errors.Is(gotErr, wantErr) && gotErr != wantErr { //nolint:errorlint // both nil is equal
			t.Fatalf("split at %d,%d: err %v, unsplit %v", a, b, gotErr, wantErr)
		}
		if gp.InvalidLines != wp.InvalidLines || gp.FirstInvalidLine != wp.FirstInvalidLine {
			t.Fatalf("split at %d,%d: invalid %d %q, unsplit %d %q",
				a, b, gp.InvalidLines, gp.FirstInvalidLine, wp.InvalidLines, wp.FirstInvalidLine)
		}
	})
}

// BenchmarkParser: an OpenAI-style token stream read in 32 KiB reads (the transport's buffer).
func BenchmarkParser(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString("data: {\"choices\":[{\"delta\":{\"content\":\"token\"}}]}\n\n")
	}
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		p := NewParser(0)
		for off := 0; off < len(in); off += readBufferBytes {
			_ = feedEvents(p, in[off:min(off+readBufferBytes, len(in))], func(Event) {})
		}
	}
}
