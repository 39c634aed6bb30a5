package agent

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"encoding/json"
)

// update rewrites the expected records: go test -run TestTranscripts -update (then read the diff).
var update = flag.Bool("update", false, "rewrite testdata/transcripts/*.record.json")

// transcript is one recorded response: testdata/transcripts/NAME.http holds comment lines ("#",
// where the shape comes from), then "status:", "content-type:" and "end:" (eof, or reset: the
// connection is reset after the body), a blank line, and the body byte for byte.
type transcript struct {
	name        string
	status      int
	contentType string
	reset       bool
	body        []byte
}

func readTranscript(path string) (transcript, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return transcript{}, err
	}
	tr := transcript{name: strings.TrimSuffix(filepath.Base(path), ".http")}
	for {
		nl := bytes.IndexByte(raw, '\n')
		if nl < 0 {
			return tr, fmt.Errorf("%s: no blank line before the body", path)
		}
		line := string(raw[:nl])
		raw = raw[nl+1:]
		if line == "" {
			tr.body = raw
			return tr, nil
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, ": ")
		switch k {
		case "status":
			tr.status, err = strconv.Atoi(v)
		case "content-type":
			tr.contentType = v
		case "end":
			tr.reset = v == "reset"
		default:
			err = fmt.Errorf("unknown header %q", k)
		}
		if err != nil {
			return tr, fmt.Errorf("%s: %w", path, err)
		}
	}
}

func transcripts(t testing.TB) []transcript {
	t.Helper()
	paths, err := filepath.Glob("testdata/transcripts/*.http")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	var out []transcript
	for _, p := range paths {
		tr, err := readTranscript(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
	return out
}

// replayTimes is the clock of a replay: the request starts at 0 and event i arrives at 100 + 10i
// ms, so every expected figure can be worked out by hand from the transcript.
func replayTimes(i int) float64 { return 100 + 10*float64(i) }

// sseEvent is one event the parser emitted, its data copied.
type sseEvent struct {
	name string
	data string
}

// parsedReads is what the parser made of a body read in pieces: its events in order, the first
// invalid line, and the error that stopped it, if any.
type parsedReads struct {
	events       []sseEvent
	firstInvalid string
	err          error
}

// parseReads parses a body as the transport reads it, split into reads at the given offsets
// (none: one read).
func parseReads(body []byte, splits ...int) parsedReads {
	var out parsedReads
	p := NewParser(MaxLineBytes)
	emit := func(name string, data []byte) { out.events = append(out.events, sseEvent{name, string(data)}) }
	at := 0
	for _, s := range append(splits, len(body)) {
		s = min(max(s, at), len(body))
		if out.err = p.FeedRaw(body[at:s], emit); out.err != nil {
			break
		}
		at = s
	}
	out.firstInvalid = p.FirstInvalidLine
	return out
}

// replay interprets a transcript as the transport would, with the body split into reads at the
// given offsets (none: one read).
func replay(tr transcript, splits ...int) Record {
	rc := recorder{requestedInput: 1024, requestedOutput: 16}
	end := streamEnd{status: tr.status}
	events := 0
	if tr.status >= 200 && tr.status <= 299 && isEventStream(tr.contentType) {
		parsed := parseReads(tr.body, splits...)
		for _, e := range parsed.events {
			rc.event(e.name, []byte(e.data), replayTimes(events))
			events++
		}
		if parsed.err != nil {
			end.code, end.transportErr = codeLineTooLong, parsed.err.Error()
		}
		end.firstInvalid = parsed.firstInvalid
	} else {
		end.body = string(tr.body[:min(len(tr.body), maxBodyBytes)])
	}
	if tr.reset && end.code == "" {
		end.code, end.transportErr = codeReset, "read: connection reset by peer"
	}
	end.endMs = replayTimes(events) + 5
	rec := rc.finish(end)
	if rec.Outcome == outcomeErrored {
		rec.ErrorMessage = messageForResults(rec.ErrorMessage, nil, errorMessageMax)
	}
	return rec
}

// recordJSON is a record as the expected files hold it: the agent's JSON of it, indented.
func recordJSON(r *Record) []byte {
	raw, err := r.MarshalJSON()
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		panic(err)
	}
	return append(out.Bytes(), '\n')
}

// TestTranscripts holds every transcript to its expected record (testdata/transcripts/*.record.json).
func TestTranscripts(t *testing.T) {
	for _, tr := range transcripts(t) {
		t.Run(tr.name, func(t *testing.T) {
			rec := replay(tr)
			got := recordJSON(&rec)
			path := filepath.Join("testdata", "transcripts", tr.name+".record.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestTranscripts -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("record differs from %s:\ngot  %s\nwant %s", path, got, want)
			}
		})
	}
}

// TestTranscriptsSplitAnywhere: a stream split at any byte gives the parser's events of one read,
// in order, with the same first invalid line and error. The recorder never sees the reads, only the
// events (replay), so equal events make the record of one read, which TestTranscripts holds. Whole
// records at every split took 13 s of go test's 15 (JSON decoding 72% of it); events take 1.2 s.
func TestTranscriptsSplitAnywhere(t *testing.T) {
	for _, tr := range transcripts(t) {
		whole := parseReads(tr.body)
		for at := 1; at < len(tr.body); at++ {
			if got := parseReads(tr.body, at); !reflect.DeepEqual(got, whole) {
				t.Fatalf("%s split at byte %d:\ngot  %+v\nwant %+v", tr.name, at, got, whole)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// FuzzRecord: any body, split anywhere, under any status, ends in exactly one record of a known
// outcome and error kind, and never panics.
func FuzzRecord(f *testing.F) {
	for _, tr := range transcripts(f) {
		f.Add(tr.body, uint16(tr.status), uint16(len(tr.body)/2), uint16(len(tr.body)/3))
	}
	kinds := map[string]bool{}
	for _, k := range errorKinds {
		kinds[k] = true
	}
	f.Fuzz(func(t *testing.T, body []byte, status, split1, split2 uint16) {
		tr := transcript{status: int(status % 600), contentType: "text/event-stream", body: body}
		rec := replay(tr, int(split1), int(split2))
		switch rec.Outcome {
		case outcomeCompleted:
			if rec.OutputTokens < 1 || len(rec.ITLMs) != rec.OutputTokens-1 {
				t.Fatalf("completed with %d tokens and %d ITL samples", rec.OutputTokens, len(rec.ITLMs))
			}
		case outcomeErrored:
			if !kinds[rec.ErrorKind] {
				t.Fatalf("unknown error kind %q", rec.ErrorKind)
			}
		default:
			t.Fatalf("outcome %q", rec.Outcome)
		}
		if whole := replay(tr); tr.status >= 200 && tr.status <= 299 &&
			!bytes.Equal(recordJSON(&whole), recordJSON(&rec)) {
			t.Fatalf("split changed the record:\n%s\n%s", recordJSON(&whole), recordJSON(&rec))
		}
	})
}
