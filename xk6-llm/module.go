// Package llm is the k6 extension k6/x/llm: one streaming HTTP request whose server-sent events
// are read and timestamped in Go, then handed to the script in batches. The contract is
// docs/k6-x-llm.md in the repository. Go reads and stamps; JavaScript interprets.
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
	return &ModuleInstance{
		vu: vu,
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
	onEvents  sobek.Callable
	buffers   *sync.Pool
	transport http.RoundTripper

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
}

// stamp converts a monotonic time to ms on the test-run scale. The test-run duration is read
// once, at the start; later stamps add monotonic time to it, so they never step backwards.
func (r *request) stamp(t time.Time) float64 {
	return float64(r.offset+t.Sub(r.base)) / float64(time.Millisecond)
}

// stream implements llm.stream(params, onEvents): it checks its arguments (a misuse throws),
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
	onEvents, ok := sobek.AssertFunction(call.Argument(1))
	if !ok {
		common.Throw(rt, errors.New("llm.stream: onEvents must be a function"))
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
// pushes the samples and settles the promise.
func (r *request) finish(o *outcome, resolve, reject func(any) error) error {
	if err := r.deliver(); err != nil {
		return err
	}
	if r.thrown != nil && o.code == codeNone {
		o.code = codeCancelled
	}
	failed := o.status == 0 || o.status >= 400 || o.code != codeNone || r.thrown != nil
	pushMetrics(r.vuCtx, r.state, r.tags, r.p, o.cleanURL, o.status, failed, o.times)
	if r.thrown != nil {
		return reject(r.thrown)
	}
	return resolve(r.result(o))
}

// result builds the JS result object.
func (r *request) result(o *outcome) *sobek.Object {
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
	_ = res.Set("events", r.delivered)
	_ = res.Set("invalidLines", o.invalidLines)
	_ = res.Set("firstInvalidLine", o.firstInvalid)
	return res
}
