package llm

import (
	"context"
	"strconv"
	"time"

	"go.k6.io/k6/lib"
	"go.k6.io/k6/metrics"
)

// sampleTimes is what the request measured for its http_* samples.
type sampleTimes struct {
	duration   time.Duration // start to end of stream
	waiting    time.Duration // request written to first response byte
	connecting time.Duration // TCP connect; 0 on a reused connection
	end        time.Time     // the samples' timestamp
}

// pushMetrics pushes one request's http_* samples, tagged as k6/http tags its own (the VU's tags,
// method, url, name, status, expected_response), then params.tags. Nothing is pushed once the
// VU's context has ended.
func pushMetrics(ctx context.Context, state *lib.State, base metrics.TagsAndMeta, p *params,
	cleanURL string, status int, failed bool, t sampleTimes,
) {
	if state.Samples == nil || state.BuiltinMetrics == nil {
		return
	}
	tm := base.Clone()
	enabled := state.Options.SystemTags
	tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagMethod, p.method)
	tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagURL, cleanURL)
	if _, named := tm.Tags.Get(metrics.TagName.String()); !named {
		tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagName, cleanURL)
	}
	tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagStatus, strconv.Itoa(status))
	tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagExpectedResponse,
		strconv.FormatBool(status >= 200 && status <= 399))
	for _, kv := range p.tags {
		tm.SetTag(kv[0], kv[1])
	}

	bm := state.BuiltinMetrics
	failedValue := 0.0
	if failed {
		failedValue = 1
	}
	sample := func(m *metrics.Metric, v float64) metrics.Sample {
		return metrics.Sample{
			TimeSeries: metrics.TimeSeries{Metric: m, Tags: tm.Tags},
			Time:       t.end,
			Metadata:   tm.Metadata,
			Value:      v,
		}
	}
	metrics.PushIfNotDone(ctx, state.Samples, metrics.ConnectedSamples{
		Samples: []metrics.Sample{
			sample(bm.HTTPReqs, 1),
			sample(bm.HTTPReqDuration, metrics.D(t.duration)),
			sample(bm.HTTPReqWaiting, metrics.D(t.waiting)),
			sample(bm.HTTPReqConnecting, metrics.D(t.connecting)),
			sample(bm.HTTPReqFailed, failedValue),
		},
		Tags: tm.Tags,
		Time: t.end,
	})
}
