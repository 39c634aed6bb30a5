// Package llm is the k6 extension k6/x/llm: one streaming request to an OpenAI-compatible endpoint.
// Go reads the stream, timestamps it with the kernel's receive time and interprets it into a
// request record whose llm_* samples Go pushes itself. The script gets the record back, and the
// events too when it asks for them. The contract is docs/k6-x-llm.md in the repository.
package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/js/common"
	"go.k6.io/k6/js/modules"
	"go.k6.io/k6/lib"
	"go.k6.io/k6/metrics"
)

func init() {
	modules.Register("k6/x/llm", New())
}

// RootModule is the global k6/x/llm module; it holds no state, so nothing is shared across VUs.
type RootModule struct{}

// ModuleInstance is k6/x/llm for one VU.
type ModuleInstance struct {
	vu modules.VU
	// metrics are the llm_* metrics, registered in the test's registry when the VU was made.
	metrics requestMetrics
	// buffers recycles the 32 KiB read buffers of this VU's requests.
	buffers *sync.Pool
	// transport is the VU's stamping copy of k6's transport; used on the JS thread only.
	transport vuTransport
}

var (
	_ modules.Module   = &RootModule{}
	_ modules.Instance = &ModuleInstance{}
)

// New returns the root module.
func New() *RootModule {
	return &RootModule{}
}

// NewModuleInstance returns the instance for one VU.
func (*RootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	ms, err := registerRequestMetrics(vu.InitEnv().Registry)
	if err != nil {
		common.Throw(vu.Runtime(), err)
	}
	return &ModuleInstance{
		vu:      vu,
		metrics: ms,
		buffers: &sync.Pool{New: func() any {
			b := make([]byte, readBufferBytes)
			return &b
		}},
	}
}

// Exports returns stream, as a named export and on the default export.
func (mi *ModuleInstance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{"stream": mi.stream}}
}

// request is one stream() call. Fields below mu are shared with the reader goroutine; the
// others are set before it starts or used only on the JS thread.
type request struct {
	vu        modules.VU
	state     *lib.State
	vuCtx     context.Context
	p         *params
	tags      metrics.TagsAndMeta
	onEvents  sobek.Callable // nil: no events are handed to the script
	buffers   *sync.Pool
	transport http.RoundTripper
	metrics   requestMetrics
	// secrets are the request's credentials, redacted from the record's message.
	secrets []string

	// rec interprets the events on the reader goroutine; read on the JS thread once it has ended.
	rec recorder

	ctx    context.Context
	cancel context.CancelCauseFunc
	// base is the request start on the monotonic clock; offset is the test-run time then.
	base   time.Time
	offset time.Duration

	mu        sync.Mutex
	pending   []timedEvent
	scheduled bool

	// JS thread only.
	spare     []timedEvent
	delivered int
	thrown    sobek.Value
	// pushed: the deferred llm_* samples have been pushed.
	pushed bool
}

// stamp converts a monotonic time to ms on the test-run scale. The test-run duration is read
// once, at the start; later stamps add monotonic time to it, so they never step backwards.
func (r *request) stamp(t time.Time) float64 {
	return float64(r.offset+t.Sub(r.base)) / float64(time.Millisecond)
}

// stream implements llm.stream(params, onEvents?): it checks its arguments (a misuse throws),
// starts the request on a goroutine and returns a promise of the result.
func (mi *ModuleInstance) stream(call sobek.FunctionCall) sobek.Value {
	rt := mi.vu.Runtime()
	state := mi.vu.State()
	if state == nil {
		common.Throw(rt, errors.New("using llm.stream in the init context is not supported"))
	}
	if state.Transport == nil {
		common.Throw(rt, errors.New("llm.stream: the VU has no HTTP transport"))
	}
	p, err := parseParams(call.Argument(0))
	if err != nil {
		common.Throw(rt, err)
	}
	var onEvents sobek.Callable
	if cb := call.Argument(1); !nullish(cb) {
		fn, ok := sobek.AssertFunction(cb)
		if !ok {
			common.Throw(rt, errors.New("llm.stream: onEvents must be a function"))
		}
		onEvents = fn
	}

	vuCtx := mi.vu.Context()
	r := &request{
		vu:        mi.vu,
		state:     state,
		vuCtx:     vuCtx,
		p:         p,
		tags:      state.Tags.GetCurrentValues(),
		onEvents:  onEvents,
		buffers:   mi.buffers,
		transport: mi.transport.roundTripper(state),
		metrics:   mi.metrics,
		secrets:   secretsOf(p.headers),
		rec:       recorder{requestedInput: p.requestedInput, requestedOutput: p.requestedOutput, keepText: p.keepText},
		offset:    testRunOffset(vuCtx),
		base:      time.Now(),
	}
	r.ctx, r.cancel = context.WithCancelCause(vuCtx)
	promise, resolve, reject := rt.NewPromise()
	// Reserved for the whole request: the event loop cannot end while it is outstanding, which
	// also makes the deliveries' RegisterCallback calls from the reader goroutine safe.
	settle := mi.vu.RegisterCallback()
	go func() {
		o := r.run()
		r.cancel(nil) // release the context's resources; the outcome is already classified
		settle(func() error { return r.finish(o, resolve, reject) })
	}()
	return rt.ToValue(promise)
}

// finish runs on the JS thread after the response has ended: it delivers what is still pending,
// builds the record, pushes the samples and settles the promise.
func (r *request) finish(o *outcome, resolve, reject func(any) error) error {
	if err := r.deliver(); err != nil {
		return err
	}
	if r.thrown != nil && o.code == codeNone {
		o.code = codeCancelled
	}
	rec := r.record(o)
	health := clientHealth{
		readLag:    some(float64(o.readLag)/float64(time.Millisecond), o.hasReadLag),
		cpuPerCore: some(processCPUPerCore()),
	}
	failed := o.status == 0 || o.status >= 400 || o.code != codeNone || r.thrown != nil
	samples := httpSamples(r.state, r.tags, r.p, o.cleanURL, o.status, failed, o.times)
	if !r.p.deferMetrics {
		// Stamped when pushed, as a script's Trend.add would be: a VU's samples then reach the outputs
		// in time order, and Prometheus remote write sends a series' latest value only for a sample
		// newer than the one it last sent (an older one would be folded in but never sent).
		samples = append(samples, r.llmSamples(&rec, health, nil, time.Now())...)
	}
	push(r.vuCtx, r.state, samples, o.times.end)
	if r.thrown != nil {
		return reject(r.thrown)
	}
	return resolve(r.result(o, &rec, health))
}

// llmSamples are the request's llm_* and llm_client_* samples, with extra tags added.
func (r *request) llmSamples(rec *Record, h clientHealth, extra [][2]string, t time.Time) []metrics.Sample {
	tm := r.llmTags(extra)
	return append(recordSamples(r.metrics, rec, tm, t), clientSamples(r.metrics, h, tm, t)...)
}

// record builds the request's record from what the recorder saw and how the response ended.
func (r *request) record(o *outcome) Record {
	rec := r.rec.finish(streamEnd{
		status:       o.status,
		transportErr: o.err,
		code:         o.code,
		body:         string(o.body),
		firstInvalid: o.firstInvalid,
		startMs:      r.stamp(r.base),
		endMs:        r.stamp(o.end),
	})
	if rec.Outcome == outcomeErrored {
		rec.ErrorMessage = messageForResults(rec.ErrorMessage, r.secrets, errorMessageMaxChar)
	}
	if r.p.hasSLO {
		good := judgeGoodput(&rec, r.p.slo)
		rec.Goodput = &good
	}
	return rec
}

// llmTags are the tags of the llm_* samples: the VU's tags when the request started, params.tags,
// then extra (the deferred push's own).
func (r *request) llmTags(extra [][2]string) metrics.TagsAndMeta {
	tm := r.tags.Clone()
	for _, kv := range r.p.tags {
		tm.SetTag(kv[0], kv[1])
	}
	for _, kv := range extra {
		tm.SetTag(kv[0], kv[1])
	}
	return tm
}

// pushMetrics implements result.pushMetrics(tags?) of a request made with deferMetrics: it pushes
// the record's llm_* samples once, with the given tags added.
func (r *request) pushMetrics(rec *Record, h clientHealth) func(sobek.FunctionCall) sobek.Value {
	return func(call sobek.FunctionCall) sobek.Value {
		rt := r.vu.Runtime()
		if r.pushed {
			common.Throw(rt, errors.New("llm: pushMetrics: this request's metrics were already pushed"))
		}
		extra, err := tagsParam(call.Argument(0), "pushMetrics: tags")
		if err != nil {
			common.Throw(rt, err)
		}
		r.pushed = true
		now := time.Now() // stamped when pushed: see finish
		push(r.vuCtx, r.state, r.llmSamples(rec, h, extra, now), now)
		return sobek.Undefined()
	}
}

// result builds the JS result object.
func (r *request) result(o *outcome, rec *Record, h clientHealth) *sobek.Object {
	rt := r.vu.Runtime()
	headers := rt.NewObject()
	for k, v := range o.headers {
		_ = headers.Set(strings.ToLower(k), strings.Join(v, ", "))
	}
	headersTime := 0.0
	if !o.headersAt.IsZero() {
		headersTime = r.stamp(o.headersAt)
	}
	res := rt.NewObject()
	_ = res.Set("status", o.status)
	_ = res.Set("headers", headers)
	_ = res.Set("error", o.err)
	_ = res.Set("errorCode", o.code)
	_ = res.Set("body", string(o.body))
	_ = res.Set("startTime", r.stamp(r.base))
	_ = res.Set("headersTime", headersTime)
	_ = res.Set("endTime", r.stamp(o.end))
	_ = res.Set("events", rec.Events)
	_ = res.Set("invalidLines", o.invalidLines)
	_ = res.Set("firstInvalidLine", o.firstInvalid)
	_ = res.Set("record", recordObject(rt, rec))
	if r.p.keepText {
		_ = res.Set("text", r.rec.text.String())
	}
	if r.p.deferMetrics {
		_ = res.Set("pushMetrics", r.pushMetrics(rec, h))
	}
	return res
}

// recordObject is the record as a plain JS object, in lib/record.ts's shape.
func recordObject(rt *sobek.Runtime, rec *Record) *sobek.Object {
	obj := rt.NewObject()
	for _, f := range rec.fields() {
		if itl, ok := f.value.([]float64); ok {
			items := make([]any, len(itl))
			for i, v := range itl {
				items[i] = v
			}
			_ = obj.Set(f.name, rt.NewArray(items...))
			continue
		}
		_ = obj.Set(f.name, f.value)
	}
	return obj
}
