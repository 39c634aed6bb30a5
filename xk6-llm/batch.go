package llm

import (
	"errors"
	"fmt"

	"github.com/grafana/sobek"
)

// timedEvent is an event with the time the transport read it (ms on the test-run scale).
type timedEvent struct {
	time float64
	Event
	// json is the data decoded on the reader goroutine when params.parseJson asked for it;
	// hasJSON is false when it was not asked for or the data is not JSON.
	json    any
	hasJSON bool
}

// push is called by the reader goroutine with the events one read completed. It appends them to
// the pending slice and, unless a delivery is already scheduled, schedules one on the event
// loop: while the script keeps up every read gets its own delivery, and when it falls behind
// the events pile up and cross into JavaScript together.
func (r *request) push(events []timedEvent) {
	r.mu.Lock()
	r.pending = append(r.pending, events...)
	schedule := !r.scheduled
	r.scheduled = true
	r.mu.Unlock()
	if schedule {
		// Safe off the JS thread: the request's own callback, registered in stream(), is still
		// outstanding, so the event loop cannot have ended.
		enqueue := r.vu.RegisterCallback()
		enqueue(r.deliver)
	}
}

// deliver runs on the JS thread: it takes every pending event and calls onEvents once. A throw
// cancels the request; the promise then rejects with the exception.
func (r *request) deliver() error {
	r.mu.Lock()
	batch := r.pending
	r.pending = r.spare[:0]
	r.scheduled = false
	r.mu.Unlock()
	defer func() {
		clear(batch)
		r.spare = batch[:0] // the two slices swap, so a steady stream allocates none
	}()
	if len(batch) == 0 || r.thrown != nil {
		return nil
	}
	rt := r.vu.Runtime()
	items := make([]any, len(batch))
	var lastName string
	nameValue := rt.ToValue("")
	for i := range batch {
		e := &batch[i]
		if e.Name != lastName {
			lastName, nameValue = e.Name, rt.ToValue(e.Name)
		}
		obj := rt.NewObject()
		_ = obj.Set("time", e.time)
		_ = obj.Set("name", nameValue)
		_ = obj.Set("data", e.Data)
		if e.hasJSON {
			// A Go value wrapped, not copied: properties convert when the script reads them.
			_ = obj.Set("json", rt.ToValue(e.json))
		}
		items[i] = obj
	}
	r.delivered += len(batch)
	if _, err := r.onEvents(sobek.Undefined(), rt.NewArray(items...)); err != nil {
		var interrupted *sobek.InterruptedError
		if errors.As(err, &interrupted) {
			// k6 is stopping the VU: end the request and let the event loop stop too.
			r.thrown = rt.ToValue(err.Error())
			r.cancel(&endError{code: codeCancelled, msg: err.Error()})
			return err
		}
		var ex *sobek.Exception
		if errors.As(err, &ex) {
			r.thrown = ex.Value()
		} else {
			r.thrown = rt.ToValue(err.Error())
		}
		r.cancel(&endError{code: codeCancelled, msg: fmt.Sprintf("onEvents threw: %s", err.Error())})
	}
	return nil
}
