package llm

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.k6.io/k6/js/modulestest"
	"go.k6.io/k6/lib"
	"go.k6.io/k6/metrics"
	"gopkg.in/guregu/null.v3"
)

// harness is one VU running k6/x/llm on k6's test event loop, with its samples collected.
type harness struct {
	rt       *modulestest.Runtime
	registry *metrics.Registry
	samples  chan metrics.SampleContainer
	state    *lib.State
}

// newHarness returns a VU in its VU context (not init), with k6's options and a plain transport;
// configure may change the state before it is used.
func newHarness(t *testing.T, configure ...func(*lib.State)) *harness {
	t.Helper()
	rt := modulestest.NewRuntime(t)
	registry := rt.VU.InitEnvField.Registry
	mi := New().NewModuleInstance(rt.VU)
	if err := rt.VU.RuntimeField.Set("llm", mi.Exports().Named); err != nil {
		t.Fatal(err)
	}
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	transport := &http.Transport{DialContext: dialer.DialContext}
	t.Cleanup(transport.CloseIdleConnections)
	samples := make(chan metrics.SampleContainer, 1000)
	state := &lib.State{
		Options: lib.Options{
			SystemTags: &metrics.DefaultSystemTagSet,
			UserAgent:  null.StringFrom("k6-test/1.0"),
		},
		BuiltinMetrics: rt.BuiltinMetrics,
		Transport:      transport,
		Samples:        samples,
		Tags:           lib.NewVUStateTags(registry.RootTagSet().With("vutag", "v1")),
	}
	for _, c := range configure {
		c(state)
	}
	rt.MoveToVUContext(state)
	return &harness{rt: rt, registry: registry, samples: samples, state: state}
}

// jsEvent and jsResult are the JSON of what the script saw.
type jsEvent struct {
	Time float64 `json:"time"`
	Name string  `json:"name"`
	Data string  `json:"data"`
}

type jsResult struct {
	Status           int               `json:"status"`
	Headers          map[string]string `json:"headers"`
	Error            string            `json:"error"`
	ErrorCode        string            `json:"errorCode"`
	Body             string            `json:"body"`
	StartTime        float64           `json:"startTime"`
	HeadersTime      float64           `json:"headersTime"`
	EndTime          float64           `json:"endTime"`
	Events           int               `json:"events"`
	InvalidLines     int               `json:"invalidLines"`
	FirstInvalidLine string            `json:"firstInvalidLine"`
}

type jsOut struct {
	Result   *jsResult   `json:"result"`
	Batches  [][]jsEvent `json:"batches"`
	Rejected *string     `json:"rejected"`
}

func (o *jsOut) events() []jsEvent {
	var all []jsEvent
	for _, b := range o.Batches {
		all = append(all, b...)
	}
	return all
}

// stream runs `await llm.stream(<paramsJS>, onEvents)` on the event loop, where onEvents records
// each batch and then runs onEventsJS (which sees the batch as `evs`), and returns what the script
// saw once the promise has settled.
func (h *harness) stream(t *testing.T, paramsJS, onEventsJS string) *jsOut {
	t.Helper()
	script := `
		globalThis.out = { result: null, batches: [], rejected: null };
		llm.stream(` + paramsJS + `, (evs) => {
			out.batches.push(evs.map((e) => ({ time: e.time, name: e.name, data: e.data })));
			` + onEventsJS + `
		}).then((r) => { out.result = r; }, (e) => { out.rejected = String(e); });
	`
	if _, err := h.rt.RunOnEventLoop(script); err != nil {
		t.Fatalf("event loop: %v", err)
	}
	v, err := h.rt.VU.Runtime().RunString(`JSON.stringify(out)`)
	if err != nil {
		t.Fatal(err)
	}
	var out jsOut
	if err := json.Unmarshal([]byte(v.String()), &out); err != nil {
		t.Fatal(err)
	}
	if out.Result == nil && out.Rejected == nil {
		t.Fatal("the promise did not settle")
	}
	return &out
}

// drain returns the samples pushed so far, by metric name.
func (h *harness) drain() map[string][]metrics.Sample {
	got := map[string][]metrics.Sample{}
	for {
		select {
		case c := <-h.samples:
			for _, s := range c.GetSamples() {
				got[s.Metric.Name] = append(got[s.Metric.Name], s)
			}
		default:
			return got
		}
	}
}

// sse serves an event stream written in the given chunks, flushed one by one with gap between
// them, and then waits for the client to go away or hold (a hanging server) to pass.
func sse(gap, hold time.Duration, chunks ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher) //nolint:forcetypeassert // httptest's writer flushes
		f.Flush()
		for i, c := range chunks {
			if i > 0 && gap > 0 {
				if !sleep(r.Context(), gap) {
					return
				}
			}
			_, _ = w.Write([]byte(c))
			f.Flush()
		}
		sleep(r.Context(), hold)
	}
}

// sleep waits for d or the context; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// js quotes a Go string as a JS string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// paramsJS returns a params object literal for url with extra fields.
func paramsJS(url string, extra ...string) string {
	return "{ url: " + js(url) + strings.Join(append([]string{""}, extra...), ", ") + " }"
}
